// The machine's process-start cost, measured before every bench run (and BENCH_COMPARE): the CPU of `node -e 0`, of
// `helm version --short`, and of a direct `helm install` of the bench chart (the floor's flags), each the median of a
// few runs. A figure of the operator's means little without it. Called by operator-bench.ts before any operator starts;
// installs and uninstalls only its own releases (calibrate-N).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { directHelmEnv } from './phases/floors.ts';
import { cpuSeconds } from './proc.ts';

export interface Calibration {
  /** CPU seconds of one `node -e 0`. */
  readonly nodeCpu: number;
  /** CPU seconds of one `helm version --short`. */
  readonly helmVersionCpu: number;
  /** CPU seconds of one `helm install` of the bench chart (helm's process only; the API server's work not counted). */
  readonly helmInstallCpu: number;
}

export interface CalibrateOptions {
  readonly node: string;
  readonly helm: string;
  readonly kubeconfig: string;
  /** Absolute path of the bench chart. */
  readonly chart: string;
  readonly namespace: string;
  readonly workDir: string;
  /** PATH for helm (nothing else of the bench's environment reaches it). */
  readonly path: string;
  readonly openApiValidation: boolean;
  readonly signal: AbortSignal;
  /** Runs of each; the median is kept. @default 5 */
  readonly runs?: number;
}

/**
 * CPU seconds of one child process: this process's reaped-children CPU (cutime + cstime) before and after it, so the
 * bench must start nothing else meanwhile. Rejects when the command fails.
 */
export async function childCpu(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv, signal: AbortSignal) {
  const before = cpuSeconds('self').children;
  await new Promise<void>((resolve, reject) => {
    const c = spawn(cmd, args, { env, signal, stdio: ['ignore', 'ignore', 'pipe'] });
    const err: string[] = [];
    c.stderr?.setEncoding('utf8').on('data', (d: string) => err.push(d));
    c.on('error', reject);
    c.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${err.join('')}`)),
    );
  });
  return cpuSeconds('self').children - before;
}

export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

export async function calibrate(o: CalibrateOptions): Promise<Calibration> {
  const runs = o.runs ?? 5;
  const home = mkdtempSync(join(o.workDir, 'calibrate-'));
  const env = directHelmEnv(home, o.kubeconfig, o.path); // as the floors run helm
  const times = async (n: number, one: (i: number) => Promise<number>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await one(i));
    return median(out);
  };
  try {
    const nodeCpu = await times(runs, () => childCpu(o.node, ['-e', '0'], env, o.signal));
    const helmVersionCpu = await times(runs, () => childCpu(o.helm, ['version', '--short'], env, o.signal));
    const ns = ['--namespace', o.namespace];
    const validation = o.openApiValidation ? [] : ['--disable-openapi-validation'];
    // The first install warms helm's discovery cache, as the operator's first release does: not counted.
    const installs: number[] = [];
    try {
      for (let i = 0; i <= runs; i++) {
        const args = ['install', `calibrate-${i}`, o.chart, ...ns, ...validation];
        installs.push(await childCpu(o.helm, args, env, o.signal));
      }
    } finally {
      for (let i = 0; i < installs.length; i++)
        await childCpu(o.helm, ['uninstall', `calibrate-${i}`, ...ns], env, o.signal).catch(() => 0);
    }
    return { nodeCpu, helmVersionCpu, helmInstallCpu: median(installs.slice(1)) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
