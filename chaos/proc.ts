// Child processes for the chaos suite: run a command to completion (stdout, or an error with its stderr tail), and
// find a process group's members in /proc. Used by chaos/plane.ts, chaos/operator.ts and the scenarios.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly input?: string;
  readonly signal?: AbortSignal;
}

/** Runs `cmd args`, resolves with its stdout; rejects naming the command, its exit code and its stderr's tail. */
export function run(cmd: string, args: readonly string[], o: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: o.env ?? process.env,
      cwd: o.cwd,
      stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      signal: o.signal,
    });
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    if (o.input !== undefined) child.stdin?.end(o.input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else
        reject(
          new Error(
            `${[cmd, ...args].join(' ')} failed (exit ${code}): ${err.trim().split('\n').slice(-10).join('\n')}`,
          ),
        );
    });
  });
}

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
