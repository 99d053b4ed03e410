// The bench's kit: its settings (BENCH_* variables, documented in docs/contributing.md), its log and Ctrl-C handling,
// and the waits every phase uses (a CR watch's events, never polling the API server the operator shares), plus the
// table's formatting. Imported by operator-bench.ts and the phases in bench/phases/; starts nothing itself.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { type UntilOptions, until } from '../test/support/until.ts';
import type { CR, CrWatch } from './cr-watch.ts';
import type { Operator } from './operator-process.ts';

export const ROOT = resolve(import.meta.dirname, '..');
export const TESTENV = join(ROOT, 'hack/testenv.sh');
export const MAIN = join(ROOT, 'dist/cmd/main.js');
export const env = process.env;
const int = (name: string, def: number): number => {
  const n = Number(env[name] || def);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${env[name]} must be a non-negative integer`);
  return n;
};
const durationMs = (text: string): number => {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.map((p) => p[0]).join('') !== text || parts.length === 0) throw new Error(`bad duration ${text}`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * (units[p[2] ?? ''] ?? 0), 0);
};
export const CRS = int('BENCH_CRS', 100);
export const SEQUENTIAL = int('BENCH_SEQUENTIAL', 5);
/** Operators on the plane: more than 1 shards the CRs over them (bench/fleet.ts). */
export const REPLICAS = Math.max(1, int('BENCH_REPLICAS', 1));
/** 0 skips phase 9 (helm and kubectl run directly), e.g. for a second run that only changes BENCH_REPLICAS. */
export const FLOORS = int('BENCH_FLOORS', 1);
/** 0 skips phase 7 (every CR upgraded at once). */
export const UPGRADE = int('BENCH_UPGRADE', 1);
export const DRIFT = int('BENCH_DRIFT', 20);
export const DRIFT_GAP_MS = durationMs(env.BENCH_DRIFT_GAP || '2s');
export const IDLE_PERIODS = int('BENCH_IDLE_PERIODS', 2);
export const PERIOD = env.BENCH_RECONCILE_PERIOD || '30s';
export const PERIOD_MS = durationMs(PERIOD);
export const MAX_CONCURRENT = env.BENCH_MAX_CONCURRENT || '';
export const CREATE_CONCURRENCY = Math.max(1, int('BENCH_CREATE_CONCURRENCY', 50));
/** The deadline of each wait for `crs` CRs: BENCH_TIMEOUT, or 1.5 s per CR (300 s at least). */
const timeoutFor = (crs: number) => durationMs(env.BENCH_TIMEOUT || `${Math.max(300, crs * 1.5)}s`);
/** The deadline of each wait: for BENCH_CRS, or for the point bench/scale.ts runs (deadlinesFor). */
export let TIMEOUT_MS = timeoutFor(CRS);
/** bench/scale.ts, before each point of its grid: the waits from here on are sized for `crs` CRs. */
export function deadlinesFor(crs: number): void {
  TIMEOUT_MS = timeoutFor(crs);
}
/** What the upgrade phase sets in each bulk CR's spec (and the helm floor with --set-string). */
export const UPGRADE_VALUES = { index: 'bench-upgrade' } as const;
export const FLOOR_VALIDATION = env.BENCH_FLOOR_OPENAPI_VALIDATION === 'true';
export const NS = 'bench';
export const GVR = { group: 'demo.example.com', version: 'v1alpha1', plural: 'nginxes' } as const;

export const T0 = performance.now();
const abort = new AbortController();
export const signal: AbortSignal = abort.signal;
export const log = (msg: string) =>
  process.stderr.write(`bench [${((performance.now() - T0) / 1000).toFixed(1)}s] ${msg}\n`);
let interrupts = 0;
const onSignal = (sig: string) => {
  if (++interrupts > 1) process.exit(130);
  log(`${sig}: tearing down (again to exit at once)`);
  abort.abort(new Error(`interrupted by ${sig}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** Runs a command; resolves with its stdout (stderr goes to ours). */
export function run(cmd: string, args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((res, rej) => {
    const c = spawn(cmd, args, { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
    const out: string[] = [];
    c.stdout.setEncoding('utf8').on('data', (d: string) => out.push(d));
    c.on('error', rej);
    c.on('close', (code) =>
      code === 0 ? res(out.join('')) : rej(new Error(`${cmd} ${args.join(' ')} exited with ${code}`)),
    );
  });
}
export const lastLine = (s: string) => s.trim().split('\n').pop() ?? '';

let operatorExit: string | undefined;
/** Called when the operator exits: every wait then fails at once, naming how. */
export function noteOperatorExit(how: string): void {
  operatorExit = how;
}
/**
 * How the bench waits with until() (test/support/until.ts): `probe` every `everyMs` until it returns a value (not
 * undefined); a probe's error ends the wait, as do Ctrl-C, TIMEOUT_MS and the operator's exit (each naming how).
 */
export const benchWait = (everyMs: number): UntilOptions => ({
  timeoutMs: TIMEOUT_MS,
  everyMs,
  signal,
  done: (v) => v !== undefined,
  probeErrors: 'throw',
  stopWhen: (what) =>
    operatorExit ? new Error(`the operator exited (${operatorExit}) while waiting for ${what}`) : undefined,
  timeoutError: (what) => new Error(`timed out after ${TIMEOUT_MS / 1000}s waiting for ${what}`),
});

export async function apiserverRssMiB(dir: string): Promise<string> {
  const line = (await run('bash', [TESTENV, 'status', dir])).split('\n').find((l) => l.startsWith('kube-apiserver'));
  return line?.trim().split(/\s+/)[2] ?? '?';
}

export const revisionOf = (o: CR) => o.status?.deployedRelease?.revision ?? 0;
export const deployed = (o: CR | undefined) =>
  o?.status?.conditions?.some((c) => c.type === 'Deployed' && c.status === 'True') ?? false;

/** Each name's time at which `done` held (from the watch's events); throws after TIMEOUT_MS or if the operator exits. */
export async function allDone(
  crs: CrWatch,
  what: string,
  names: readonly string[],
  done: (n: string, c?: CR) => boolean,
) {
  let check: NodeJS.Timeout | undefined;
  const deadline = performance.now() + TIMEOUT_MS;
  const failed = new Promise<never>((_, reject) => {
    check = setInterval(() => {
      if (operatorExit) reject(new Error(`the operator exited (${operatorExit}) while waiting for ${what}`));
      else if (signal.aborted) reject(signal.reason);
      else if (performance.now() > deadline)
        reject(new Error(`timed out after ${TIMEOUT_MS / 1000}s waiting for ${what}`));
    }, 200);
  });
  try {
    const times = await Promise.race([Promise.all(names.map((n) => crs.when(n, (c) => done(n, c)))), failed]);
    return new Map(names.map((n, i) => [n, times[i] ?? 0]));
  } finally {
    clearInterval(check);
  }
}

/** Creates `names` (at most `inFlight` requests at once) and waits until each is Deployed; latencies in ms. */
export async function createAndWait(
  custom: CustomObjectsApi,
  crs: CrWatch,
  phase: string,
  names: string[],
  inFlight: number,
) {
  const sent = new Map<string, number>();
  const t0 = performance.now();
  let next = 0;
  let createMs = 0;
  const creator = async () => {
    for (let name = names[next++]; name !== undefined; name = names[next++]) {
      signal.throwIfAborted();
      sent.set(name, performance.now());
      // An empty spec, not none: operator-sdk's helm-operator fails a CR without one ("failed to get spec").
      const body = {
        apiVersion: `${GVR.group}/${GVR.version}`,
        kind: 'Nginx',
        metadata: { name, labels: { phase } },
        spec: {},
      };
      await custom.createNamespacedCustomObject({ ...GVR, namespace: NS, body });
    }
  };
  const creating = Promise.all(Array.from({ length: Math.min(inFlight, names.length) }, creator)).then(() => {
    createMs = performance.now() - t0;
  });
  const [, done] = await Promise.all([
    creating,
    allDone(crs, `${names.length} ${phase} CRs to be Deployed`, names, (_n, c) => deployed(c)),
  ]);
  const latencies = names.map((n) => (done.get(n) ?? 0) - (sent.get(n) ?? 0));
  return { latencies, createMs, allMs: Math.max(...done.values()) - t0 };
}

/** Sends `act(name)` for each name (at most CREATE_CONCURRENCY at once) and waits until `isDone` holds for each;
 * latencies (request sent → the watch event that shows it done) and the time until all were done, in ms. */
export async function actAndWait(
  crs: CrWatch,
  what: string,
  names: string[],
  act: (name: string) => Promise<unknown>,
  isDone: (name: string, current: CR | undefined) => boolean,
) {
  const sent = new Map<string, number>();
  const t0 = performance.now();
  let next = 0;
  const sender = async () => {
    for (let name = names[next++]; name !== undefined; name = names[next++]) {
      signal.throwIfAborted();
      sent.set(name, performance.now());
      await act(name);
    }
  };
  const [, done] = await Promise.all([
    Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, names.length) }, sender)),
    allDone(crs, what, names, isDone),
  ]);
  const latencies = names.map((n) => (done.get(n) ?? 0) - (sent.get(n) ?? 0));
  return { latencies, allMs: Math.max(...done.values()) - t0 };
}

/** Resolves once no helm process has started for 3 s. */
export const helmQuiet = (o: Operator, what: string) => {
  let quiet = { n: -1, since: performance.now() };
  return until(
    what,
    () => {
      const n = o.helmCalls().length;
      if (n !== quiet.n) quiet = { n, since: performance.now() };
      return performance.now() - quiet.since >= 3000 ? true : undefined;
    },
    benchWait(250),
  );
};

/** helm_operator_dependent_objects_cached from the operator's /metrics. */
export async function dependentObjectsCached(address: string | undefined): Promise<string> {
  if (!address) return 'unknown (no metrics address logged)';
  const body = await (await fetch(`http://${address}/metrics`)).text();
  return /^helm_operator_dependent_objects_cached (\d+)$/m.exec(body)?.[1] ?? 'unknown';
}

export const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? 0;
export const ms = (x: number) => `${Math.round(x)} ms`;
export const dist = (xs: number[]) => `${ms(pct(xs, 0.5))} / ${ms(pct(xs, 0.95))} / ${ms(Math.max(...xs))}`;
/** "96 MiB", or per replica "61 + 58 + 60 MiB". */
export const mib = (x: number | readonly number[]) =>
  `${(typeof x === 'number' ? [x] : x).map((v) => v.toFixed(0)).join(' + ')} MiB`;
export const sec = (x: number) => `${x.toFixed(2)} s`;
/** "install 100, upgrade 2" */
export const tally = (xs: string[]) => {
  const n = new Map<string, number>();
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
  return [...n].map(([k, v]) => `${k} ${v}`).join(', ');
};
