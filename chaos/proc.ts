// Child processes for the chaos suite: run a command to completion (the tests' run(), re-exported), and find a
// process group's members in /proc. Used by chaos/plane.ts, chaos/operator.ts and the scenarios.
import { readdirSync, readFileSync } from 'node:fs';

export { run } from '../test/support/run.ts';

/** PIDs and command names of the live processes in process group `pgid` (from /proc/PID/stat, field 5). */
export function groupMembers(pgid: number): { pid: number; comm: string }[] {
  const out: { pid: number; comm: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z') out.push({ pid: Number(d), comm });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
