// Chaos scenario "restarts": kube-apiserver, then etcd, stopped during churn (helm upgrades in flight), down 5 s,
// started again with the same arguments. The operator must stay up, its informers must resume without a relist
// storm, and the changes written meanwhile (retried until the API accepts them) must be applied within 30 s.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../../test/support/until.ts';
import {
  createNamespace,
  crs,
  deployedAtGeneration,
  installSampleCrd,
  type Kube,
  kubeFor,
  pendingRecords,
  releaseRecords,
} from '../../kit/kube.ts';
import { startOperator } from '../../kit/operator.ts';
import { type Component, sleep } from '../../kit/plane.ts';
import { type Row, row, type Scenario, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { brief } from '../kills/checks.ts';

const NS = 'chaos-restarts';
const DOWN_MS = 5_000;
const APPLY_BAR_MS = 30_000;
/** The operator's informers here: the CRs, helm's release records, and the dependents (Deployment, Service, ConfigMap). */
const INFORMERS = 5;

export const restarts: Scenario = {
  name: 'restarts',
  title: 'API server and etcd restarts',
  inShort: true,
  async run(ctx) {
    const k = kubeFor(ctx.plane.kubeconfig, join(ctx.plane.bin, 'kubectl'));
    await installSampleCrd(k, ctx.root);
    await createNamespace(k, NS);
    const watches = join(ctx.work, 'watches.yaml');
    writeFileSync(
      watches,
      `- {group: demo.example.com, version: v1alpha1, kind: Nginx, chart: ${ctx.root}/charts/nginx}\n`,
    );
    const op = startOperator({
      root: ctx.root,
      kubeconfig: ctx.plane.kubeconfig,
      watchesFile: watches,
      helm: ctx.helm,
      args: ['--zap-log-level=debug'],
      env: { WATCH_NAMESPACE: NS },
      logFile: join(ctx.work, 'operator.log'),
    });
    let exited = false;
    void op.exited.then(() => {
      exited = true;
    });
    const c = crs(k, NS);
    const names = Array.from({ length: ctx.short ? 4 : 10 }, (_, i) => `r${i}`);
    const rows: Row[] = [];
    try {
      for (const n of names) await c.create(n, { replicaCount: 1 });
      await Promise.race([
        converged(k, names, 120_000, ctx.signal),
        op.exited.then((code) => {
          throw new Error(`the operator exited (${code}): ${op.output().slice(-1000)}`);
        }),
      ]);
      ctx.log(`${names.length} CRs Deployed`);
      let round = 1;
      for (const component of ['kube-apiserver', 'etcd'] as const) {
        rows.push(...(await restartDuringChurn(ctx, { k, component, names, round: ++round, op })));
        rows.push(row(`${component}: operator still running`, exited ? 'no' : 'yes', 'yes', !exited));
      }
      const { pending, stalePending } = pendingRecords(await releaseRecords(k, NS));
      rows.push(row('pending releases (latest revision pending-*)', brief(pending), '0', pending.length === 0));
      rows.push(row('older revisions left pending-* by helm rollbacks', brief(stalePending), '', true));
      return rows;
    } finally {
      await op.stop();
    }
  },
};

/** One restart: upgrades started, the component stopped, the next spec written (retried) while it is down. */
async function restartDuringChurn(
  ctx: ScenarioContext,
  o: { k: Kube; component: Component; names: string[]; round: number; op: ReturnType<typeof startOperator> },
): Promise<Row[]> {
  const c = crs(o.k, NS);
  // Churn: every CR gets a new spec, so helm upgrades are running when the component stops.
  for (const n of o.names) await c.patchSpec(n, { replicaCount: o.round });
  const listsBefore = o.op.logged('Informer listed').length;
  const restarted = ctx.plane.restart(o.component, DOWN_MS, ctx.signal);
  // Meanwhile: the next spec for every CR and one new CR, each retried until the API takes it.
  const written = (async () => {
    await sleep(500, ctx.signal);
    for (const n of o.names) await retry(() => c.patchSpec(n, { replicaCount: o.round + 1 }), ctx.signal);
    await retry(() => c.create(`new-${o.round}`, { replicaCount: 1 }), ctx.signal);
  })();
  const { readyMs } = await restarted;
  const back = performance.now();
  await written;
  const all = [...o.names, `new-${o.round}`];
  await converged(o.k, all, 120_000, ctx.signal, (n) => (n === `new-${o.round}` ? 1 : o.round + 1));
  const applyMs = performance.now() - back;
  const lists = o.op.logged('Informer listed').length - listsBefore;
  ctx.log(`${o.component}: back ${seconds(readyMs)} after its start, changes applied ${seconds(applyMs)} after that`);
  o.names.push(`new-${o.round}`);
  return [
    row(`${o.component}: stopped, down ${DOWN_MS / 1000} s, ready again after`, seconds(readyMs), '', true),
    row(
      `${o.component}: changes written meanwhile applied, after its return`,
      seconds(applyMs),
      '≤ 30 s',
      applyMs <= APPLY_BAR_MS,
    ),
    row(
      `${o.component}: informer LISTs after the restart`,
      lists,
      `≤ ${INFORMERS} (one per informer)`,
      lists <= INFORMERS,
    ),
  ];
}

/** Every CR Deployed at its generation, its Deployment at the wanted replicas, no release pending. */
async function converged(
  k: Kube,
  names: readonly string[],
  timeoutMs: number,
  signal: AbortSignal,
  replicas?: (name: string) => number,
): Promise<void> {
  const c = crs(k, NS);
  await until(
    `${names.length} CRs Deployed at their generation`,
    async () => {
      for (const n of names) {
        const cr = await c.get(n);
        if (!cr || !deployedAtGeneration(cr)) throw new Error(`${n} is not Deployed at its generation`);
        const want = replicas?.(n);
        const d =
          want === undefined ? undefined : await k.apps.readNamespacedDeployment({ name: `${n}-nginx`, namespace: NS });
        if (d && d.spec?.replicas !== want) throw new Error(`${n}-nginx has ${d.spec?.replicas} replicas, not ${want}`);
      }
      // An upgrade cut off while the API is down leaves its revision pending-*; the recovery's rollback supersedes
      // it with a new revision, and helm leaves the old record as it was (as in the leader scenario).
      const { pending } = pendingRecords(await releaseRecords(k, NS));
      if (pending.length > 0) throw new Error(`releases pending: ${pending.join(', ')}`);
      return true;
    },
    { timeoutMs, everyMs: 250, signal },
  );
}

/** Retries a write every 200 ms until the API accepts it (the component is down meanwhile). */
async function retry(write: () => Promise<unknown>, signal: AbortSignal): Promise<void> {
  await until(
    'the API to accept a write',
    async () => {
      await write();
      return true;
    },
    { timeoutMs: 90_000, everyMs: 200, signal },
  );
}
