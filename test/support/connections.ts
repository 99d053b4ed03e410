// The TCP connections a process holds open to one port, read from /proc (Linux): its socket inodes (/proc/PID/fd)
// matched against the ESTABLISHED entries of its network namespace's tcp and tcp6 tables. Test-only; reads /proc and
// changes nothing.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const ESTABLISHED = '01';

/** How many ESTABLISHED TCP connections process `pid` holds to remote port `port`. */
export function establishedTo(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile
      }
    })();
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m?.[1]) inodes.add(m[1]);
  }
  let n = 0;
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      const [remote, state, inode] = [f[2], f[3], f[9]];
      if (!remote || state !== ESTABLISHED || !inode || !inodes.has(inode)) continue;
      if (Number.parseInt(remote.split(':')[1] ?? '', 16) === port) n++;
    }
  }
  return n;
}
