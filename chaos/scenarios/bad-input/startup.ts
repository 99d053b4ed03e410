// Bad-input cases at startup: a bad watches.yaml, chart, helm, kubeconfig, flag or missing CRD, each run as a short
// operator process that must exit non-zero with the documented code and a message naming the problem within a
// deadline (not hang), or, for what the docs (docs/*.md) call a warning, keep running. Used by index.ts;
// each process watches only an empty namespace and is stopped in a finally.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../../test/support/until.ts';
import { startOperator } from '../../kit/operator.ts';
import type { Plane } from '../../kit/plane.ts';
import { seconds } from '../../kit/scenario.ts';
import type { CaseResult } from './case.ts';
import { cell, watchExit } from './kube.ts';

export interface StartupEnv {
  readonly root: string;
  readonly work: string;
  readonly plane: Plane;
  /** The plane's real helm. */
  readonly helm: string;
  /** A fake helm of chaos/fixtures/bad-helm, made executable in the work folder. */
  fakeHelm(name: string): string;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

interface Inputs {
  /** watches.yaml text (`CHART` stands for the sample chart's path); null: no such file. Default: the sample. */
  readonly watches?: string | null;
  readonly helm?: string;
  readonly kubeconfig?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export interface StartupCase {
  readonly name: string;
  readonly bar: string;
  readonly short?: boolean;
  inputs(s: StartupEnv): Inputs;
  /**
   * Exits non-zero within the deadline, logging this code (when given) and a message matching; `plain`: a usage
   * error, one plain stderr line ending `(<code>)` and exit 2, before any log line.
   */
  readonly exits?: { readonly code?: string; readonly match: RegExp; readonly plain?: boolean };
  /** Starts and keeps running, having logged a warning matching. */
  readonly warns?: RegExp;
}

/** The namespace the startup operators watch: empty, so that one that does start reconciles nothing. */
export const EMPTY_NS = 'bad-input-empty';
const SAMPLE = '- group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: CHART\n';
const EXIT_DEADLINE_MS = 90_000;

/** The plane's kubeconfig with the value of `field` (a *-data line) replaced by `base64`. */
export function kubeconfigWith(s: StartupEnv, name: string, field: string, base64: string): string {
  const text = readFileSync(s.plane.kubeconfig, 'utf8');
  const changed = text.replace(new RegExp(`(${field}:\\s*)\\S+`), `$1${base64}`);
  if (changed === text) throw new Error(`the plane kubeconfig has no ${field}`);
  const file = join(s.work, `${name}.kubeconfig`);
  writeFileSync(file, changed, { mode: 0o600 });
  return file;
}

/** Runs each startup case as its own operator process, `parallel` at a time. */
export async function runStartupCases(
  cases: readonly StartupCase[],
  s: StartupEnv,
  parallel = 2,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const queue = cases.map((c, i) => ({ c, i }));
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      results[next.i] = await runStartupCase(next.c, next.i, s).catch((err: unknown) => ({
        name: next.c.name,
        bar: next.c.bar,
        ok: false,
        value: cell(`error: ${err instanceof Error ? err.message : String(err)}`),
      }));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results;
}

async function runStartupCase(c: StartupCase, i: number, s: StartupEnv): Promise<CaseResult> {
  const inputs = c.inputs(s);
  const watchesFile = join(s.work, `startup-${i}-watches.yaml`);
  if (inputs.watches !== null) {
    writeFileSync(watchesFile, (inputs.watches ?? SAMPLE).replaceAll('CHART', join(s.root, 'charts/nginx')));
  }
  const t0 = performance.now();
  const op = startOperator({
    root: s.root,
    kubeconfig: inputs.kubeconfig ?? s.plane.kubeconfig,
    watchesFile,
    helm: inputs.helm ?? s.helm,
    ...(inputs.args ? { args: inputs.args } : {}),
    env: { WATCH_NAMESPACE: EMPTY_NS, ...inputs.env },
    logFile: join(s.work, `startup-${i}.log`),
  });
  const life = watchExit(op);
  const result = (ok: boolean, value: string): CaseResult => ({ name: c.name, bar: c.bar, ok, value: cell(value) });
  try {
    if (c.warns) {
      const warns = c.warns;
      const line = await until(
        'the warning and the first watch',
        async () => {
          if (!life.alive()) throw new Error(`exited ${life.code()}`);
          const warning = lines(op.output()).find((l) => l.level === 'warn' && warns.test(String(l.msg)));
          return warning && op.logged('Watching resource').length > 0 ? warning : false;
        },
        { timeoutMs: EXIT_DEADLINE_MS, signal: s.signal },
      ).catch(() => undefined);
      if (!line) return result(false, life.alive() ? 'no such warning, or never watched' : `exited ${life.code()}`);
      return result(true, `runs; warns "${warns.exec(String(line.msg))?.[0]}"`);
    }
    const exits = c.exits;
    if (!exits) throw new Error(`startup case ${c.name} expects nothing`);
    const exited = await until('exit', async () => !life.alive(), {
      timeoutMs: EXIT_DEADLINE_MS,
      everyMs: 100,
      signal: s.signal,
    }).catch(() => false);
    const took = seconds(performance.now() - t0);
    if (!exited) return result(false, `still running after ${took}`);
    if (exits.plain) {
      // A usage error: one plain line `helm-operator run: <message> (<CODE>)` on stderr and exit 2, no log line.
      const line = op.output().trim().split('\n').at(-1) ?? '';
      const m = exits.match.exec(line);
      const codeOk = exits.code === undefined || line.endsWith(`(${exits.code})`);
      const seen = `exit ${life.code()} in ${took}: plain`;
      const ok = m && codeOk && life.code() === 2 && !line.startsWith('{');
      return ok ? result(true, `${seen} "${m[0]}"`) : result(false, `${seen} "${line}"`);
    }
    // 'exit' may come before the last of its output has been read: give the pipe a moment to drain.
    const logged = () => lines(op.output()).findLast((l) => l.level === 'error');
    const error = await until('the error line', async () => logged(), { timeoutMs: 5_000, everyMs: 50 }).catch(logged);
    const msg = String(error?.msg ?? '(no error logged)');
    const m = exits.match.exec(msg);
    const codeOk = exits.code === undefined || error?.code === exits.code;
    const seen = `exit ${life.code()} in ${took}: ${String(error?.code ?? '')}`;
    return m && codeOk && life.code() !== 0 ? result(true, `${seen} "${m[0]}"`) : result(false, `${seen} "${msg}"`);
  } finally {
    if (life.alive()) await op.stop(30_000).catch(() => op.killGroup());
  }
}

/** The JSON lines of an operator's output. */
function lines(out: string): Record<string, unknown>[] {
  const parsed: Record<string, unknown>[] = [];
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      parsed.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a torn line
    }
  }
  return parsed;
}
