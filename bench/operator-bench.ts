// Operator benchmark (not a test): starts a local control plane (hack/testenv.sh), runs the REAL operator
// (node dist/cmd/main.js run, its log to a file; helm processes counted from its debug log), then the physical floors
// (bench/floors.ts) on the same plane, and prints two markdown tables to stdout: the operator's figures, and each
// next to its floors as ratios (bench/side-by-side.ts); progress goes to stderr. `npm run bench` / `make bench` build
// dist/ first. ~5 minutes on 2 cores at BENCH_CRS=100; BENCH_CRS=1000 is the scale run (much longer).
// Phases: (1) BENCH_SEQUENTIAL CRs one after another: create→Deployed latency; they are then deleted;
// (2) BENCH_CRS CRs created at once: create→Deployed latency and time until all are Deployed;
// (3) BENCH_IDLE_PERIODS reconcile periods with the settled CRs idle: helm processes, reconciles, operator CPU;
// (4) operator and kube-apiserver RSS, and the objects its dependent informers cache; (5) drift repair: BENCH_DRIFT
// times, a bulk CR's Deployment is deleted (time until it exists again) and scaled (time until reverted), polled
// through a watch (not polling, which would load the API server it measures); (6) helm processes by subcommand over
// the whole run; (7) a value changed in every bulk CR's spec at once: time until all are upgraded; (8) every bulk CR
// deleted at once: time until all are gone; then the operator stops and (9) the same releases (names, namespace,
// chart, concurrency = the operator's workers) are installed, upgraded and uninstalled with helm directly, and applied,
// re-applied and deleted with kubectl apply --server-side of the rendered manifest. CPU windows: the operator process
// plus its helm children, and kube-apiserver (its PID from the testenv folder), from the first request until settled
// (create, upgrade: helm quiet for 3 s) or all gone (delete); for the floors, the loop.
// Latency = from just before the create request to the watch event that shows status.conditions Deployed=True
// (from one watch on the CRs, bench/cr-watch.ts: no polling load on the API server the operator shares).
// Settled (start of the idle window) = no helm process and no reconcile for 3 s, every CR reconciled; after one
// reconcile period, no helm process for 3 s (see the code).
// Settings (env):
//   BENCH_CRS=100                CRs in the bulk, upgrade and delete phases (1000: the scale run)
//   BENCH_SEQUENTIAL=5           CRs in the sequential phase
//   BENCH_IDLE_PERIODS=2         length of the idle window, in reconcile periods
//   BENCH_RECONCILE_PERIOD=30s   the operator's --reconcile-period (number + ms|s|m|h, e.g. 30s, 1m30s)
//   BENCH_MAX_CONCURRENT=        --max-concurrent-reconciles; unset = the operator's default (number of CPUs)
//   BENCH_CREATE_CONCURRENCY=50  create requests in flight at once in the bulk phase
//   BENCH_HELM=helm-v3           helm: a binary name in the testenv bin folder (helm-v3, helm-v4) or a path
//   BENCH_DRIFT=20               samples per drift measurement (0 skips the phase)
//   BENCH_DRIFT_GAP=2s           pause before each drift sample, so each is an isolated event and not a storm
//                                against the client rate limit (0s measures back-to-back repairs)
//   BENCH_TIMEOUT=                deadline of each wait (operator start, all Deployed, deletion, settling);
//                                default 300s, or 1.5 s per bulk CR when that is longer
//   BENCH_FLOOR_OPENAPI_VALIDATION=false  true: the helm floor keeps helm's client-side OpenAPI validation
//                                (default: --disable-openapi-validation, the cheapest helm that does the same work)
//   BENCH_LOG=                   also write the operator's log lines to this file
//   BENCH_NODE_OPTIONS=          Node flags added to the image's for the operator (e.g. --cpu-prof --cpu-prof-dir=D)
//   TESTENV_BIN=                 use this bin folder instead of `hack/testenv.sh build`
//   TESTENV_NODES=0              fake nodes on the plane (default 0 here: no pods run, as in the published figures)
// Ctrl-C (or SIGTERM) stops the operator and the control plane; a second Ctrl-C exits at once, and testenv's
// watchdog (TESTENV_WATCH_PID) then stops the control plane.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, VersionApi, Watch } from '@kubernetes/client-node';
import { type CR, type CrWatch, watchCRs } from './cr-watch.ts';
import { measureFloors } from './floors.ts';
import { imageNodeOptions, type Operator, startOperator } from './operator-process.ts';
import { apiserverPid, cpuSeconds, cpuWindow, memMiB } from './proc.ts';
import { sideBySide } from './side-by-side.ts';

const ROOT = resolve(import.meta.dirname, '..');
const TESTENV = join(ROOT, 'hack/testenv.sh');
const MAIN = join(ROOT, 'dist/cmd/main.js');
const env = process.env;
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
const CRS = int('BENCH_CRS', 100);
const SEQUENTIAL = int('BENCH_SEQUENTIAL', 5);
const DRIFT = int('BENCH_DRIFT', 20);
const DRIFT_GAP_MS = durationMs(env.BENCH_DRIFT_GAP || '2s');
const IDLE_PERIODS = int('BENCH_IDLE_PERIODS', 2);
const PERIOD = env.BENCH_RECONCILE_PERIOD || '30s';
const PERIOD_MS = durationMs(PERIOD);
const MAX_CONCURRENT = env.BENCH_MAX_CONCURRENT || '';
const CREATE_CONCURRENCY = Math.max(1, int('BENCH_CREATE_CONCURRENCY', 50));
const TIMEOUT_MS = durationMs(env.BENCH_TIMEOUT || `${Math.max(300, CRS * 1.5)}s`);
/** What the upgrade phase sets in each bulk CR's spec (and the helm floor with --set-string). */
const UPGRADE_VALUES = { index: 'bench-upgrade' } as const;
const FLOOR_VALIDATION = env.BENCH_FLOOR_OPENAPI_VALIDATION === 'true';
const NS = 'bench';
const GVR = { group: 'demo.example.com', version: 'v1alpha1', plural: 'nginxes' } as const;

const T0 = performance.now();
const abort = new AbortController();
const signal = abort.signal;
const log = (msg: string) => process.stderr.write(`bench [${((performance.now() - T0) / 1000).toFixed(1)}s] ${msg}\n`);
let interrupts = 0;
const onSignal = (sig: string) => {
  if (++interrupts > 1) process.exit(130);
  log(`${sig}: tearing down (again to exit at once)`);
  abort.abort(new Error(`interrupted by ${sig}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** Runs a command; resolves with its stdout (stderr goes to ours). */
function run(cmd: string, args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
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
const lastLine = (s: string) => s.trim().split('\n').pop() ?? '';

let operatorExit: string | undefined;
/** Calls `probe` every `everyMs` until it returns a value; throws after TIMEOUT_MS or on Ctrl-C. */
async function until<T>(what: string, everyMs: number, probe: () => Promise<T | undefined> | T | undefined) {
  const deadline = performance.now() + TIMEOUT_MS;
  for (;;) {
    signal.throwIfAborted();
    if (operatorExit) throw new Error(`the operator exited (${operatorExit}) while waiting for ${what}`);
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${TIMEOUT_MS / 1000}s waiting for ${what}`);
    await sleep(everyMs, undefined, { signal });
  }
}

async function apiserverRssMiB(dir: string): Promise<string> {
  const line = (await run('bash', [TESTENV, 'status', dir])).split('\n').find((l) => l.startsWith('kube-apiserver'));
  return line?.trim().split(/\s+/)[2] ?? '?';
}

const revisionOf = (o: CR) => o.status?.deployedRelease?.revision ?? 0;
const deployed = (o: CR | undefined) =>
  o?.status?.conditions?.some((c) => c.type === 'Deployed' && c.status === 'True') ?? false;

/** Each name's time at which `done` held (from the watch's events); throws after TIMEOUT_MS or if the operator exits. */
async function allDone(crs: CrWatch, what: string, names: readonly string[], done: (n: string, c?: CR) => boolean) {
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
async function createAndWait(custom: CustomObjectsApi, crs: CrWatch, phase: string, names: string[], inFlight: number) {
  const sent = new Map<string, number>();
  const t0 = performance.now();
  let next = 0;
  let createMs = 0;
  const creator = async () => {
    for (let name = names[next++]; name !== undefined; name = names[next++]) {
      signal.throwIfAborted();
      sent.set(name, performance.now());
      const body = { apiVersion: `${GVR.group}/${GVR.version}`, kind: 'Nginx', metadata: { name, labels: { phase } } };
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
async function actAndWait(
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
const helmQuiet = (o: Operator, what: string) => {
  let quiet = { n: -1, since: performance.now() };
  return until(what, 250, () => {
    const n = o.helmCalls().length;
    if (n !== quiet.n) quiet = { n, since: performance.now() };
    return performance.now() - quiet.since >= 3000 ? true : undefined;
  });
};

/** helm_operator_dependent_objects_cached from the operator's /metrics. */
async function dependentObjectsCached(address: string | undefined): Promise<string> {
  if (!address) return 'unknown (no metrics address logged)';
  const body = await (await fetch(`http://${address}/metrics`)).text();
  return /^helm_operator_dependent_objects_cached (\d+)$/m.exec(body)?.[1] ?? 'unknown';
}

/** Deletes, then scales, a bulk CR's Deployment DRIFT times each; ms until the operator put it back. */
async function measureDrift(kc: KubeConfig, apps: AppsV1Api, o: Operator, names: string[]) {
  /** Resolves with the time the watch delivered the first event for `name` that satisfies `ok`. */
  const watchFor = async (
    name: string,
    ok: (type: string, d: { metadata?: { uid?: string }; spec?: { replicas?: number } }) => boolean,
  ) => {
    let stop: { abort(): void } | undefined;
    const seen = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${name}`)), TIMEOUT_MS);
      void new Watch(kc)
        .watch(
          `/apis/apps/v1/namespaces/${NS}/deployments`,
          { fieldSelector: `metadata.name=${name}` },
          (type, obj) => {
            if (ok(type, obj as never)) {
              clearTimeout(timer);
              resolve(performance.now());
            }
          },
          (err) => {
            if (err) reject(err);
          },
        )
        .then((c) => {
          stop = c;
        }, reject);
    });
    // The watch is open once its request is sent; the initial ADDED event of the existing object says so.
    return { seen, close: () => stop?.abort() };
  };
  const helm0 = o.helmCalls().length;
  const deleted: number[] = [];
  const scaled: number[] = [];
  const deletedInOperator: number[] = [];
  const scaledInOperator: number[] = [];
  // From the operator's own log: the watch event that woke it, to its "Drift corrected" line (1 ms resolution);
  // read once the phase is over, when the log has caught up with every repair.
  const samples: [string, number, number[]][] = [];
  const inOperator = (object: string, since: number, into: number[]) => samples.push([object, since, into]);
  const fromLog = async () => {
    await sleep(500, undefined, { signal });
    for (const [object, since, into] of samples) {
      const event = o.stats.drift.event.get(object)?.find((t) => t >= since - 5);
      const done = event === undefined ? undefined : o.stats.drift.corrected.get(object)?.find((t) => t >= event);
      if (event !== undefined && done !== undefined) into.push(done - event);
    }
  };
  for (let i = 0; i < DRIFT; i++) {
    const name = `${names[i % names.length]}-nginx`;
    if (DRIFT_GAP_MS > 0) await sleep(DRIFT_GAP_MS, undefined, { signal });
    const before = await apps.readNamespacedDeployment({ name, namespace: NS });
    let ready!: () => void;
    const opened = new Promise<void>((r) => {
      ready = r;
    });
    const w = await watchFor(name, (type, d) => {
      if (d.metadata?.uid === before.metadata?.uid) ready();
      return type === 'ADDED' && d.metadata?.uid !== before.metadata?.uid;
    });
    await opened;
    const t0 = performance.now();
    const wall0 = Date.now();
    await apps.deleteNamespacedDeployment({ name, namespace: NS });
    deleted.push((await w.seen) - t0);
    w.close();
    inOperator(`${NS}/${name}`, wall0, deletedInOperator);
  }
  for (let i = 0; i < DRIFT; i++) {
    const name = `${names[i % names.length]}-nginx`;
    if (DRIFT_GAP_MS > 0) await sleep(DRIFT_GAP_MS, undefined, { signal });
    const d = await apps.readNamespacedDeployment({ name, namespace: NS });
    const want = d.spec?.replicas ?? 1;
    let ready!: () => void;
    const opened = new Promise<void>((r) => {
      ready = r;
    });
    let changed = false;
    const w = await watchFor(name, (_type, now) => {
      if (now.spec?.replicas === want + 3) changed = true;
      else if (!changed) ready();
      return changed && now.spec?.replicas === want;
    });
    await opened;
    const t0 = performance.now();
    const wall0 = Date.now();
    await apps.replaceNamespacedDeployment({
      name,
      namespace: NS,
      body: {
        ...d,
        spec: { ...d.spec, selector: d.spec?.selector ?? {}, template: d.spec?.template ?? {}, replicas: want + 3 },
      },
    });
    scaled.push((await w.seen) - t0);
    w.close();
    inOperator(`${NS}/${name}`, wall0, scaledInOperator);
  }
  await fromLog();
  return { deleted, scaled, deletedInOperator, scaledInOperator, helm: o.helmCalls().length - helm0 };
}

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? 0;
const ms = (x: number) => `${Math.round(x)} ms`;
const dist = (xs: number[]) => `${ms(pct(xs, 0.5))} / ${ms(pct(xs, 0.95))} / ${ms(Math.max(...xs))}`;
const mib = (x: number) => `${x.toFixed(0)} MiB`;
const sec = (x: number) => `${x.toFixed(2)} s`;
/** "install 100, upgrade 2" */
const tally = (xs: string[]) => {
  const n = new Map<string, number>();
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
  return [...n].map(([k, v]) => `${k} ${v}`).join(', ');
};
async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm run bench does)`);
  const work = mkdtempSync(join(tmpdir(), 'operator-bench-'));
  let dir: string | undefined;
  let op: Operator | undefined;
  const rows: [string, string][] = [];
  const loadAtStart = loadavg()[0] ?? 0;
  try {
    log('starting the control plane (hack/testenv.sh up)');
    // No fake nodes unless asked (TESTENV_NODES): pods would add the plane's own work to every figure, and the
    // published figures and the Go operator's were measured without them.
    const nodes = { TESTENV_NODES: env.TESTENV_NODES ?? '0' };
    dir = lastLine(await run('bash', [TESTENV, 'up'], { TESTENV_WATCH_PID: String(process.pid), ...nodes }));
    signal.throwIfAborted();
    const bin = /^TESTENV_BIN=(.*)$/m.exec(readFileSync(join(dir, 'env'), 'utf8'))?.[1] ?? '';
    const kubeconfig = join(dir, 'kubeconfig');
    const helmChoice = env.BENCH_HELM || 'helm-v3';
    const helm = isAbsolute(helmChoice) ? helmChoice : join(bin, helmChoice);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const helmVersion = lastLine(await run(helm, ['version', '--short']));
    const kubeVersion = (await kc.makeApiClient(VersionApi).getCode()).gitVersion;

    const apiserver = apiserverPid(dir);
    const kubectl = (...args: string[]) => run(join(bin, 'kubectl'), args, { KUBECONFIG: kubeconfig });
    await kubectl('apply', '-f', 'config/crd/bases/');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/nginxes.demo.example.com');
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });

    log(`starting the operator (helm ${helmVersion}, --reconcile-period=${PERIOD})`);
    const o = startOperator({
      root: ROOT,
      helm,
      work,
      kubeconfig,
      watch: { group: GVR.group, version: GVR.version, kind: 'Nginx', chart: 'charts/nginx' },
      reconcilePeriod: PERIOD,
      maxConcurrent: MAX_CONCURRENT,
      env,
      logFile: env.BENCH_LOG,
      onExit: (how) => {
        operatorExit = how;
      },
    });
    op = o;
    const workers = await until('the operator to start its workers', 50, () => o.stats.workers);

    log(`phase 1: ${SEQUENTIAL} CRs, one at a time`);
    const seq: number[] = [];
    const path = `/apis/${GVR.group}/${GVR.version}/namespaces/${NS}/${GVR.plural}`;
    const seqCrs = await watchCRs({ kc, path, phase: 'seq', signal });
    const bulkCrs = await watchCRs({ kc, path, phase: 'bulk', signal });
    for (let i = 1; i <= SEQUENTIAL; i++)
      seq.push(...(await createAndWait(custom, seqCrs, 'seq', [`seq-${i}`], 1)).latencies);
    const seqNames = Array.from({ length: SEQUENTIAL }, (_, i) => `seq-${i + 1}`);
    for (const name of seqNames) await custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name });
    await allDone(seqCrs, 'the sequential CRs to be deleted', seqNames, (_n, c) => c === undefined);
    seqCrs.close();

    log(`phase 2: ${CRS} CRs at once (${CREATE_CONCURRENCY} creates in flight, ${workers} workers)`);
    const cpuBulk0 = cpuSeconds(o.pid);
    const bulkWindow = cpuWindow({ op: o.pid, apiserver });
    const names = Array.from({ length: CRS }, (_, i) => `bulk-${String(i + 1).padStart(3, '0')}`);
    const bulk = CRS > 0 ? await createAndWait(custom, bulkCrs, 'bulk', names, CREATE_CONCURRENCY) : undefined;
    // Settled: no new helm process for 3 s and, until one reconcile period has passed (then the periodic
    // reconciles never pause for 3 s), no reconcile for 3 s either (the follow-ups that changes during an install
    // cause have run) and each CR reconciled at least once.
    const allDeployed = performance.now();
    const quiet = { helm: { n: -1, since: allDeployed }, all: { n: -1, since: allDeployed } };
    const still = (q: { n: number; since: number }, n: number) => {
      if (n !== q.n) Object.assign(q, { n, since: performance.now() });
      return performance.now() - q.since >= 3000;
    };
    const reconciled = () => names.every((n) => (o.stats.reconciles.get(`${NS}/${n}`) ?? 0) >= 1);
    await until('the CRs to settle', 250, () => {
      const helmStill = still(quiet.helm, o.helmCalls().length);
      const allStill = still(
        quiet.all,
        [...o.stats.reconciles.values()].reduce((a, b) => a + b, 0),
      );
      const periodOver = performance.now() - allDeployed > PERIOD_MS;
      return helmStill && ((allStill && reconciled()) || periodOver) ? true : undefined;
    });
    const settleMs = performance.now() - allDeployed;
    const cpuBulk = { own: cpuSeconds(o.pid).own - cpuBulk0.own, helm: cpuSeconds(o.pid).children - cpuBulk0.children };
    const bulkCpu = bulkWindow.end().cpu;
    const rssSettled = memMiB(o.pid);
    const apiRssSettled = await apiserverRssMiB(dir);

    const idleMs = IDLE_PERIODS * PERIOD_MS;
    log(`phase 3: idle for ${idleMs / 1000}s (${IDLE_PERIODS} × ${PERIOD})`);
    const before = { helm: o.helmCalls().length, rec: new Map(o.stats.reconciles), cpu: cpuSeconds(o.pid).own };
    const idleT0 = performance.now();
    await sleep(idleMs, undefined, { signal });
    const idle = {
      helm: o.helmCalls().slice(before.helm),
      rec: [...o.stats.reconciles].map(([k, n]): [string, number] => [k, n - (before.rec.get(k) ?? 0)]),
      cpu: cpuSeconds(o.pid).own - before.cpu,
      s: (performance.now() - idleT0) / 1000,
    };
    const rssEnd = memMiB(o.pid);
    const hwm = memMiB(o.pid, 'VmHWM');
    const apiRssEnd = await apiserverRssMiB(dir);
    const cached = await dependentObjectsCached(o.stats.metrics);

    const drift = DRIFT > 0 && CRS > 0 ? await measureDrift(kc, kc.makeApiClient(AppsV1Api), o, names) : undefined;

    log(`phase 7: ${CRS} CRs upgraded at once (spec ${JSON.stringify(UPGRADE_VALUES)})`);
    const revisions = new Map(names.map((n) => [n, revisionOf(bulkCrs.get(n) ?? {})]));
    const upgradeWindow = cpuWindow({ op: o.pid, apiserver });
    const upgrade = await actAndWait(
      bulkCrs,
      `${CRS} CRs to be upgraded`,
      names,
      (name) =>
        custom.patchNamespacedCustomObject({
          ...GVR,
          namespace: NS,
          name,
          body: [{ op: 'add', path: '/spec', value: UPGRADE_VALUES }],
        }),
      (name, c) => c !== undefined && deployed(c) && revisionOf(c) > (revisions.get(name) ?? 0),
    );
    await helmQuiet(o, 'the upgraded CRs to settle');
    const upgradeCpu = upgradeWindow.end().cpu;

    log(`phase 8: ${CRS} CRs deleted at once`);
    const removeWindow = cpuWindow({ op: o.pid, apiserver });
    const remove = await actAndWait(
      bulkCrs,
      `${CRS} CRs to be gone`,
      names,
      (name) => custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name }),
      (_name, c) => c === undefined,
    );
    const removeCpu = removeWindow.end().cpu;
    const helmTotal = o.helmCalls();

    const recTotal = idle.rec.reduce((a, [, n]) => a + n, 0);
    const perCr = idle.rec.filter(([k]) => k.startsWith(`${NS}/bulk-`)).map(([, n]) => n); // without deleted seq-*
    const recOther = recTotal - perCr.reduce((a, b) => a + b, 0);
    const errors = o.stats.errors;
    rows.push(
      [`1 CR create→Deployed, ${SEQUENTIAL}× sequential: p50 / p95 / max`, seq.length ? dist(seq) : '-'],
      [`${CRS} CRs create→Deployed: p50 / p95 / max`, bulk ? dist(bulk.latencies) : '-'],
      [`${CRS} CRs: time to send all creates (client)`, bulk ? ms(bulk.createMs) : '-'],
      [`${CRS} CRs: time until all Deployed`, bulk ? `${(bulk.allMs / 1000).toFixed(1)} s` : '-'],
      [`${CRS} CRs: CPU, first create to settled`, `operator ${sec(cpuBulk.own)}, helm ${sec(cpuBulk.helm)}`],
      [
        `${CRS} CRs: settled (no helm process for 3 s; no reconcile either within one period) after`,
        `${(settleMs / 1000).toFixed(1)} s more`,
      ],
      ['idle window (CRs settled, nothing changes)', `${idle.s.toFixed(1)} s (${IDLE_PERIODS} × ${PERIOD})`],
      ['helm processes during idle', `${idle.helm.length}${idle.helm.length ? ` (${tally(idle.helm)})` : ''}`],
      [
        'reconciles during idle (per bulk CR: min / max)',
        `${recTotal} (${perCr.length ? `${Math.min(...perCr)} / ${Math.max(...perCr)}` : '-'}; ${recOther} of deleted CRs)`,
      ],
      ['operator CPU during idle', `${sec(idle.cpu)} (${((idle.cpu / idle.s) * 100).toFixed(2)} % of one core)`],
      ['operator RSS after settling / end of idle / peak', `${mib(rssSettled)} / ${mib(rssEnd)} / ${mib(hwm)}`],
      ['kube-apiserver RSS after settling / end of idle', `${apiRssSettled} MiB / ${apiRssEnd} MiB`],
      [
        'objects in the dependent caches (label-selected informers)',
        `${cached} (the ${CRS} releases rendered ${CRS * 3}: Deployment, Service, ConfigMap each)`,
      ],
      [
        `drift: deleted Deployment back, ${DRIFT}× (${DRIFT_GAP_MS / 1000} s apart): p50 / p95 / max`,
        drift ? dist(drift.deleted) : '-',
      ],
      [
        `drift: scaled Deployment reverted, ${DRIFT}× (${DRIFT_GAP_MS / 1000} s apart): p50 / p95 / max`,
        drift ? dist(drift.scaled) : '-',
      ],
      [
        'drift inside the operator (watch event → applied): deleted / scaled, p50 / p95',
        drift
          ? `${ms(pct(drift.deletedInOperator, 0.5))} / ${ms(pct(drift.deletedInOperator, 0.95))} (${drift.deletedInOperator.length} samples); ${ms(pct(drift.scaledInOperator, 0.5))} / ${ms(pct(drift.scaledInOperator, 0.95))} (${drift.scaledInOperator.length})`
          : '-',
      ],
      ['helm processes during the drift phase', drift ? String(drift.helm) : '-'],
      ['helm processes, whole run, by subcommand', `${helmTotal.length} (${tally(helmTotal)})`],
      ['operator error log lines, whole run', `${errors.length}${errors[0] ? ` (first: ${errors[0]})` : ''}`],
    );

    log('stopping the operator; phase 9: the floors (helm and kubectl directly)');
    await o.stop();
    const floors = await measureFloors({
      helm,
      kubectl: join(bin, 'kubectl'),
      kubeconfig,
      chart: join(ROOT, 'charts/nginx'),
      namespace: NS,
      sequential: Array.from({ length: SEQUENTIAL }, (_, i) => `seq-${i + 1}`),
      bulk: names,
      concurrency: workers,
      upgrade: UPGRADE_VALUES,
      openApiValidation: FLOOR_VALIDATION,
      apiserverPid: apiserver,
      workDir: work,
      path: env.PATH ?? '',
      signal,
      log,
    });
    const opCpu = (c: Record<string, { own: number; children: number }>) => (c.op?.own ?? 0) + (c.op?.children ?? 0);
    const table = sideBySide({
      crs: CRS,
      concurrency: workers,
      floors,
      operator: {
        sequential: seq,
        create: {
          wallMs: bulk?.allMs ?? Number.NaN,
          latencies: bulk?.latencies ?? [],
          cpu: opCpu(bulkCpu),
          cpuApiserver: bulkCpu.apiserver?.own ?? 0,
        },
        upgrade: {
          wallMs: upgrade.allMs,
          latencies: upgrade.latencies,
          cpu: opCpu(upgradeCpu),
          cpuApiserver: upgradeCpu.apiserver?.own ?? 0,
        },
        remove: { wallMs: remove.allMs, cpu: opCpu(removeCpu), cpuApiserver: removeCpu.apiserver?.own ?? 0 },
        rssMiB: rssSettled,
        idleCpuPercent: (idle.cpu / idle.s) * 100,
      },
    });
    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    const out = [
      '',
      '## helm-operator-ts benchmark',
      '',
      `node ${process.version} · helm ${helmVersion} (${helmChoice}) · kubernetes ${kubeVersion} (local control plane)`,
      `${availableParallelism()} cores (${cpu}) · ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM · load average at start ${loadAtStart.toFixed(2)}`,
      `operator: --max-concurrent-reconciles=${workers} (${MAX_CONCURRENT ? 'BENCH_MAX_CONCURRENT' : 'default: number of CPUs'}) · --reconcile-period=${PERIOD} · NODE_OPTIONS=${imageNodeOptions(ROOT) || '(none)'} (the image's)`,
      '',
      '| measurement | value |',
      '|---|---|',
      ...rows.map(([k, v]) => `| ${k} | ${v} |`),
      '',
      '### side by side: the operator and the physical floors (same plane, chart, namespace, releases, concurrency)',
      '',
      `helm floor: \`helm install|upgrade${FLOOR_VALIDATION ? '' : ' --disable-openapi-validation'}\` (BENCH_FLOOR_OPENAPI_VALIDATION=${FLOOR_VALIDATION}) · kubectl floor: \`kubectl apply --server-side\` of \`helm template\` output, rendered before the clock starts`,
      '',
      table,
      '',
      `bench wall time: ${((performance.now() - T0) / 1000).toFixed(0)} s (teardown not included)`,
      '',
    ];
    process.stdout.write(out.join('\n'));
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (op) process.stderr.write(`last operator log lines:\n${op.stats.tail.join('\n')}\n`);
    throw err;
  } finally {
    if (op) await op.stop();
    if (dir) await run('bash', [TESTENV, 'down', dir]).catch((e: unknown) => log(`testenv down failed: ${String(e)}`));
    rmSync(work, { recursive: true, force: true });
    log('torn down');
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
