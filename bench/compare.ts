// `make bench` with BENCH_COMPARE='<command>': this operator and another (operator-sdk's helm-operator, say) on one
// plane, one chart and one namespace, in alternating rounds (ours first, then theirs first), printed as one table
// with ours ÷ theirs. Each run: BENCH_SEQUENTIAL CRs created one at a time (then deleted together), BENCH_CRS at
// once (one `kubectl apply -f` of them all, as a user applies a folder) until all Deployed and the process quiet (or
// one period), one idle period, BENCH_COMPARE_DRIFT deleted Deployments, then every CR deleted. Ours runs with its
// default flags but the worker count and period (no debug log), as a user's cluster runs it.
// Called by operator-bench.ts; the other operator is started through the one launcher, as `sh -c "exec <command>"`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppsV1Api, type CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { launchOperator } from '../test/support/operator-process.ts';
import { memMiB } from '../test/support/proc.ts';
import { until } from '../test/support/until.ts';
import { type CrWatch, watchCRs } from './cr-watch.ts';
import { type Fleet, startFleet } from './fleet.ts';
import {
  actAndWait,
  allDone,
  benchWait,
  CRS,
  createAndWait,
  deployed,
  env,
  GVR,
  log,
  MAX_CONCURRENT,
  NS,
  noteOperatorExit,
  PERIOD,
  PERIOD_MS,
  ROOT,
  run,
  SEQUENTIAL,
  signal,
} from './kit.ts';
import { measureDrift } from './phases/drift.ts';
import { cpuSeconds } from './proc.ts';
import { percentile } from './side-by-side.ts';

export interface CompareOptions {
  readonly kc: KubeConfig;
  readonly custom: CustomObjectsApi;
  readonly kubeconfig: string;
  readonly helm: string;
  readonly kubectl: string;
  readonly work: string;
  /** The other operator's command line (run by sh, with the variables below set). */
  readonly command: string;
}

/** One operator process as the comparison sees it: its PID and how to stop it. */
interface Runner {
  readonly pid: number;
  stop(): Promise<void>;
}

interface RunFigures {
  readonly create1: number;
  readonly delete1: number;
  readonly allDeployed: number;
  readonly cpu: number;
  /** Of cpu: the operator process's own (the rest is its children's: helm). */
  readonly cpuOwn: number;
  readonly rss: number;
  readonly idlePercent: number;
  readonly driftBack: number;
  readonly deleteAll: number;
}

const DRIFT_SAMPLES = Number(env.BENCH_COMPARE_DRIFT || 5);
/** True while a run stops its operator: that exit is expected and must not fail the next run's waits. */
let stopping = false;
const onExit = (how: string) => {
  if (!stopping) noteOperatorExit(how);
};
const WORKERS = MAX_CONCURRENT || '2';

export async function compare(o: CompareOptions): Promise<string> {
  const ours = (tag: string): Runner => startOurs(o, tag);
  const theirs = (tag: string): Runner => startTheirs(o, tag);
  const rounds: [string, RunFigures][] = [];
  for (const [round, order] of [
    [1, [ours, theirs]],
    [2, [theirs, ours]],
  ] as const) {
    for (const start of order) {
      const who = start === ours ? 'ours' : 'theirs';
      log(`compare round ${round}: ${who}`);
      rounds.push([who, await oneRun(o, start, `r${round}${who === 'ours' ? 'o' : 't'}`)]);
    }
  }
  return table(rounds, o.command);
}

function startOurs(o: CompareOptions, tag: string): Fleet {
  return startFleet(1, {
    namespace: NS,
    root: ROOT,
    helm: o.helm,
    work: mkdtempSync(join(o.work, `${tag}-`)),
    kubeconfig: o.kubeconfig,
    watch: { group: GVR.group, version: GVR.version, kind: 'Nginx', chart: 'charts/nginx' },
    reconcilePeriod: PERIOD,
    maxConcurrent: WORKERS,
    env,
    onExit,
    logLevel: 'default',
  });
}

/** The other operator: `sh -c "exec $BENCH_COMPARE"` with KUBECONFIG, WATCH_NAMESPACE and BENCH_* set for its flags. */
function startTheirs(o: CompareOptions, tag: string): Runner {
  const work = mkdtempSync(join(o.work, `${tag}-`));
  const watches = join(work, 'watches.yaml');
  writeFileSync(
    watches,
    `- {group: ${GVR.group}, version: ${GVR.version}, kind: Nginx, chart: ${join(ROOT, 'charts/nginx')}}\n`,
  );
  const op = launchOperator({
    root: ROOT,
    entrypoint: { command: 'sh', args: ['-c', `exec ${o.command}`], cwd: ROOT },
    env: {
      ...env,
      KUBECONFIG: o.kubeconfig,
      WATCH_NAMESPACE: NS,
      BENCH_WATCHES_FILE: watches,
      BENCH_WORKERS: WORKERS,
      BENCH_RECONCILE_PERIOD: PERIOD,
    },
    logFile: join(work, 'operator.log'),
  });
  void op.exited.then((code) => onExit(`the compared operator: code ${code}`));
  return {
    pid: op.pid,
    async stop() {
      await op.stop(15_000);
    },
  };
}

/** The operator tree's CPU seconds: its own and its reaped children's (helm). */
const cpuOf = (pid: number) => {
  const c = cpuSeconds(pid);
  return c.own + c.children;
};

async function oneRun(o: CompareOptions, start: (tag: string) => Runner, tag: string): Promise<RunFigures> {
  const runner = start(tag);
  try {
    await sleep(3000, undefined, { signal }); // started, its informers listed (it logs in its own format)
    const path = `/apis/${GVR.group}/${GVR.version}/namespaces/${NS}/${GVR.plural}`;
    const seqCrs = await watchCRs({ kc: o.kc, path, phase: `${tag}-seq`, signal });
    const seqNames = Array.from({ length: SEQUENTIAL }, (_, i) => `${tag}-seq-${i + 1}`);
    const creates: number[] = [];
    for (const name of seqNames)
      creates.push(...(await createAndWait(o.custom, seqCrs, `${tag}-seq`, [name], 1)).latencies);
    const deletes = (
      await actAndWait(
        seqCrs,
        'the sequential CRs to go',
        seqNames,
        (name) => o.custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name }),
        (_n, c) => c === undefined,
      )
    ).latencies;
    seqCrs.close();

    const crs = await watchCRs({ kc: o.kc, path, phase: `${tag}-bulk`, signal });
    const names = Array.from({ length: CRS }, (_, i) => `${tag}-bulk-${String(i + 1).padStart(3, '0')}`);
    const cpu0 = cpuSeconds(runner.pid);
    const bulk = await applyAndWait(o, crs, `${tag}-bulk`, names);
    await settled(runner.pid);
    const cpu1 = cpuSeconds(runner.pid);
    const cpuOwn = cpu1.own - cpu0.own;
    const cpu = cpuOwn + cpu1.children - cpu0.children;
    const rss = memMiB(runner.pid);
    const idle0 = cpuOf(runner.pid);
    await sleep(PERIOD_MS, undefined, { signal });
    const idlePercent = ((cpuOf(runner.pid) - idle0) / (PERIOD_MS / 1000)) * 100;
    // No log of ours to read: the drift phase's in-operator times stay empty.
    const none = {
      helmCalls: () => [],
      stats: { reconciles: new Map(), errors: [], tail: [], drift: { event: new Map(), corrected: new Map() } },
    };
    const drift = await measureDrift(o.kc, o.kc.makeApiClient(AppsV1Api), none, names, {
      samples: DRIFT_SAMPLES,
      scaled: false,
    });
    const removed = await actAndWait(
      crs,
      `${CRS} CRs to go`,
      names,
      (name) => o.custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name }),
      (_n, c) => c === undefined,
    );
    crs.close();
    const p50 = (xs: readonly number[]) => percentile(xs, 0.5);
    return {
      create1: p50(creates),
      delete1: p50(deletes),
      allDeployed: bulk.allMs,
      cpu,
      cpuOwn,
      rss,
      idlePercent,
      driftBack: p50(drift.deleted),
      deleteAll: removed.allMs,
    };
  } finally {
    stopping = true;
    await runner.stop();
    stopping = false;
  }
}

/** All `names` in one `kubectl apply -f` (as a user applies a folder of CRs); waits until each is Deployed. */
async function applyAndWait(o: CompareOptions, crs: CrWatch, phase: string, names: string[]) {
  const file = join(o.work, `${phase}.yaml`);
  const doc = (name: string) =>
    `apiVersion: ${GVR.group}/${GVR.version}\nkind: Nginx\nmetadata: {name: ${name}, namespace: ${NS}, labels: {phase: ${phase}}}\nspec: {}\n`;
  writeFileSync(file, names.map(doc).join('---\n'));
  const t0 = performance.now();
  const [, done] = await Promise.all([
    run(o.kubectl, ['apply', '-f', file], { KUBECONFIG: o.kubeconfig }),
    allDone(crs, `${names.length} ${phase} CRs to be Deployed`, names, (_n, c) => deployed(c)),
  ]);
  return { allMs: Math.max(...done.values()) - t0 };
}

/** Quiet: the operator tree used under 5 % of a core over 3 s, or one reconcile period passed. */
async function settled(pid: number): Promise<void> {
  const t0 = performance.now();
  let last = { t: t0, cpu: cpuOf(pid) };
  await until(
    'the operator to be quiet',
    () => {
      const now = { t: performance.now(), cpu: cpuOf(pid) };
      const busy = (now.cpu - last.cpu) / ((now.t - last.t) / 1000);
      last = now;
      return busy < 0.05 || now.t - t0 > PERIOD_MS ? true : undefined;
    },
    benchWait(3000),
  );
}

function table(rounds: readonly [string, RunFigures][], command: string): string {
  const of = (who: string) => rounds.filter(([w]) => w === who).map(([, f]) => f);
  const [ours, theirs] = [of('ours'), of('theirs')];
  const ms = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
  const rows: [string, (f: RunFigures) => number, (x: number) => string][] = [
    ['1 CR create → Deployed, p50', (f) => f.create1, ms],
    [`the ${SEQUENTIAL} sequential CRs deleted at once → each gone, p50`, (f) => f.delete1, ms],
    [`${CRS} CRs at once → all Deployed`, (f) => f.allDeployed, ms],
    [`CPU for those ${CRS} (operator and its children), to quiet`, (f) => f.cpu, (x) => `${x.toFixed(1)} s`],
    [`  of which the operator's own`, (f) => f.cpuOwn, (x) => `${x.toFixed(1)} s`],
    [`  of which its children's (helm)`, (f) => f.cpu - f.cpuOwn, (x) => `${x.toFixed(1)} s`],
    [`idle CPU, ${CRS} CRs, one period`, (f) => f.idlePercent, (x) => `${x.toFixed(2)} %`],
    ['deleted Deployment back, p50', (f) => f.driftBack, ms],
    [`RSS, ${CRS} CRs`, (f) => f.rss, (x) => `${x.toFixed(0)} MiB`],
    [`delete all ${CRS}`, (f) => f.deleteAll, ms],
  ];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const lines = [
    `### side by side: ours and \`${command.split(' ')[0]}\` (same plane, chart, namespace; ${WORKERS} workers; ${PERIOD})`,
    '',
    '| figure | ours (round 1 / 2) | theirs (round 1 / 2) | ours ÷ theirs (means) |',
    '|---|---|---|---|',
    ...rows.map(([label, get, fmt]) => {
      const [a, b] = [ours.map(get), theirs.map(get)];
      const ratio = mean(b) > 0 ? `${(mean(a) / mean(b)).toFixed(2)}×` : '-';
      return `| ${label} | ${a.map(fmt).join(' / ')} | ${b.map(fmt).join(' / ')} | ${ratio} |`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
