// Process figures from /proc for the benchmarks: CPU seconds (own and waited-for children) of a PID or over a window,
// and the plane's PIDs (a PID's memory is test/support/proc.ts). Called by the phases in bench/phases/ and
// bench/operator-bench.ts. Reads only; never signals or starts a process.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds of `pid` from /proc/PID/stat: own = utime+stime (fields 14, 15), children = cutime+cstime (16, 17:
 * the processes it has waited for, e.g. helm). Fields are counted after `(comm)`, which may contain spaces. */
export function cpuSeconds(pid: number | 'self'): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(f[11]) + Number(f[12])) / CLK_TCK, children: (Number(f[13]) + Number(f[14])) / CLK_TCK };
}

/** The kube-apiserver's PID, from the testenv work folder `up` printed. */
export function apiserverPid(testenvDir: string): number {
  const pid = Number(readFileSync(`${testenvDir}/kube-apiserver.pid`, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no kube-apiserver PID in ${testenvDir}`);
  return pid;
}

/** The PIDs of the plane's other processes (etcd, kube-controller-manager…) from the testenv folder's *.pid. */
export function planePids(testenvDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of readdirSync(testenvDir))
    if (f.endsWith('.pid') && f !== 'kube-apiserver.pid' && f !== 'watchdog.pid') {
      const pid = Number(readFileSync(join(testenvDir, f), 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && existsSync(`/proc/${pid}/stat`)) out[f.slice(0, -4)] = pid;
    }
  return out;
}

/** Measures a window: CPU of the given PIDs (own, children) and wall time, from now until `end()`. */
export function cpuWindow(pids: Readonly<Record<string, number | 'self'>>) {
  const t0 = performance.now();
  const start = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuSeconds(p)]));
  return {
    end(): { wallMs: number; cpu: Record<string, { own: number; children: number }> } {
      const cpu = Object.fromEntries(
        Object.entries(pids).map(([k, p]) => {
          const now = cpuSeconds(p);
          const s = start[k] ?? { own: 0, children: 0 };
          return [k, { own: now.own - s.own, children: now.children - s.children }];
        }),
      );
      return { wallMs: performance.now() - t0, cpu };
    },
  };
}

/**
 * Waits until `pid` uses less than `share` of a core over a whole `windowMs` (a freshly started kube-apiserver
 * rebuilds its OpenAPI documents for seconds after a CRD appears), or until `timeoutMs`; returns the last window's
 * share, so the bench can say how quiet the plane was.
 */
export async function quiet(pid: number, share = 0.1, windowMs = 1_000, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const before = cpuSeconds(pid).own;
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const used = (cpuSeconds(pid).own - before) / (windowMs / 1_000);
    if (used < share || performance.now() > deadline) return used;
  }
}
