// What the host sees of an operator pod on the real node: its container's memory cgroup (peak usage, limit) and its
// processes, and a rule in the pod's own network namespace (nsenter into a container process' netns, iptables there,
// never on the host). Used by the node group's cases 3 and 5; only reads /sys and /proc, and removes every rule it adds.
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../../test/support/run.ts';

const MEMORY = '/sys/fs/cgroup/memory';

/** The container's memory cgroup folder (cgroup v1, cgroupfs driver: kubepods/<qos>/pod<uid>/<container id>). */
export function containerCgroup(podUid: string, containerId: string): string | undefined {
  const id = containerId.replace(/^containerd:\/\//, '');
  for (const qos of ['', 'burstable', 'besteffort']) {
    const dir = join(MEMORY, 'kubepods', qos, `pod${podUid}`, id);
    if (existsSync(dir)) return dir;
  }
  return undefined;
}

export function cgroupPids(dir: string): number[] {
  return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

/** Peak memory the container's cgroup charged (max_usage_in_bytes: RSS and page cache of the operator and its helm). */
export function cgroupPeakBytes(dir: string): number {
  return Number(readFileSync(join(dir, 'memory.max_usage_in_bytes'), 'utf8').trim());
}

/** A process' peak resident set (VmHWM), in bytes; 0 once it is gone. */
export function peakRss(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The container's operator process (`node … helm-operator run …`; its comm is Node's `MainThread`), not helm. */
export function operatorPid(dir: string): number | undefined {
  return cgroupPids(dir).find((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.some((a) => a.endsWith('/helm-operator') || a.endsWith('/main.js'));
    } catch {
      return false;
    }
  });
}

/** A DROP rule for `dest` (the API server's ClusterIP) in the network namespace of `pid`; returns its removal. */
export async function cutInNetns(pid: number, dest: string): Promise<() => Promise<void>> {
  const rule = ['-d', dest, '-p', 'tcp', '-j', 'DROP'];
  await run('nsenter', ['-t', String(pid), '-n', 'iptables', '-w', '-I', 'OUTPUT', ...rule]);
  return async () => {
    await run('nsenter', ['-t', String(pid), '-n', 'iptables', '-w', '-D', 'OUTPUT', ...rule]);
  };
}

/** The network namespace of `pid` (`net:[inode]`), to show the rule went into the pod's and not the host's. */
export function netnsOf(pid: number | 'self'): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return '';
  }
}
