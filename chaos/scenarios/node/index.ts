// Chaos group "node" (`make chaos CHAOS_ARGS=--only=node`): the faults users meet with the operator as a pod on a
// real node (kubelet, containerd, runc; TESTENV_NODES=real). The operator image is built from this repository, runs
// with 2 replicas and leader election (`hack/deploy.sh render`, as `make deploy`), and 50 CRs of
// chaos/fixtures/node-chart (real pods, a post-upgrade hook Job) change and go while each case's fault strikes.
// Skipped, with hack/testenv/node-check.sh's reason, where the machine cannot run a node. Called by chaos/run.ts.
import { join } from 'node:path';
import { CommandFailedError, run } from '../../../test/support/run.ts';
import { createNamespace, installSampleCrd, kubeFor } from '../../kit/kube.ts';
import { type Row, row, type Scenario, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { pickSeed } from '../kills/model.ts';
import type { CaseContext, NodeCase } from './case.ts';
import { containerdCase, kubeletCase } from './cases-daemons.ts';
import { hookCase } from './cases-hook.ts';
import { imageCase } from './cases-image.ts';
import { evictCase, partitionCase } from './cases-leader.ts';
import { oomCase } from './cases-oom.ts';
import { buildAndLoad, deploy, operatorsReady } from './deploy.ts';
import { fleetFor, NS } from './fleet.ts';

const CASES: readonly NodeCase[] = [
  kubeletCase,
  containerdCase,
  imageCase,
  hookCase,
  evictCase,
  partitionCase,
  oomCase,
];
const CRS = 50;
const REPLICAS = 2;

export const nodeGroup: Scenario = {
  name: 'node',
  title: 'On a real node',
  nodes: 'real',
  inShort: false,
  onlyWhenNamed: true,
  async skipReason(root) {
    try {
      // The container tools (podman builds the image), installed as root from Debian's packages when missing.
      await run('bash', [join(root, 'hack/container-tools.sh')]);
      await run('bash', [join(root, 'hack/testenv/node-check.sh')]);
      return undefined;
    } catch (err) {
      return err instanceof CommandFailedError ? err.stderr.trim() : String(err);
    }
  },
  run: runNode,
};

async function runNode(ctx: ScenarioContext): Promise<Row[]> {
  const unknown = ctx.cases?.filter((n) => !CASES.some((c) => c.name === n)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(', ')}; known: ${CASES.map((c) => c.name)}`);
  const chosen = CASES.filter((c) => ctx.cases?.includes(c.name) ?? true);
  const k = kubeFor(ctx.plane.kubeconfig, join(ctx.plane.bin, 'kubectl'));
  const seed = pickSeed(process.env);
  const fleet = fleetFor(k, seed);
  const { buildMs, loadMs } = await buildAndLoad(ctx);
  ctx.log(`images built in ${seconds(buildMs)}, loaded in ${seconds(loadMs)}`);
  await installSampleCrd(k, ctx.root);
  const t0 = performance.now();
  await deploy(ctx, k, { replicas: REPLICAS });
  await operatorsReady(k, REPLICAS, ctx.signal);
  const deployMs = performance.now() - t0;
  await createNamespace(k, NS);
  const populateMs = await fleet.populate(CRS, ctx.signal);
  ctx.log(`${CRS} CRs Deployed in ${seconds(populateMs)} (seed ${seed})`);
  const rows: Row[] = [
    row(
      'operator image built (make docker-build + the chart layer), loaded into the node',
      `${seconds(buildMs)}, ${seconds(loadMs)}`,
      '',
      true,
    ),
    row(`operator deployed (${REPLICAS} replicas, leader election) to pods Ready`, seconds(deployMs), '', true),
    row(`${CRS} CRs installed, their pods running (seed ${seed})`, seconds(populateMs), '', true),
  ];
  const c: CaseContext = { ctx, k, fleet, log: ctx.log };
  for (const nodeCase of chosen) {
    if (ctx.signal.aborted) break;
    const t = performance.now();
    ctx.log(`case ${nodeCase.title}: starting`);
    try {
      await fleet.mark();
      rows.push(...(await nodeCase.run(c)));
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      ctx.log(`case ${nodeCase.title}: FAILED: ${err instanceof Error ? err.stack : msg}`);
      rows.push(row(`${nodeCase.title}: (failed)`, msg.split('\n')[0] ?? msg, '', false));
    }
    const took = performance.now() - t;
    rows.push(row(`${nodeCase.title}: case time`, seconds(took), '', true));
    ctx.log(`case ${nodeCase.title}: done in ${seconds(took)}`);
  }
  return rows;
}
