// Chaos scenario "kills": CRs of the sample chart under a seeded random churn (spec changes, deletes, creates) while
// the operator's whole process group (the operator and its helm children) is SIGKILLed at random moments and started
// again at once; then, within a deadline, everything must converge. Called by chaos/run.ts; signals only the
// operator groups it started, and leaves every operator stopped when it returns.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupMembers } from '../../../test/support/operator-process.ts';
import { until } from '../../../test/support/until.ts';
import { createNamespace, crs, installSampleCrd, KIND, kubeFor } from '../../kit/kube.ts';
import { type OperatorHandle, startOperator } from '../../kit/operator.ts';
import { sleep } from '../../kit/plane.ts';
import { type Row, row, type Scenario, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { brief, converged, inspect, planeHelmProcesses, type Verdict } from './checks.ts';
import { between, type NginxSpec, nextOp, type Op, pick, pickSeed, plan, randomSpec, seededRandom } from './model.ts';

const NS = 'chaos-kills';
const isHelm = (m: { comm: string }) => m.comm.startsWith('helm');
const summary = (v: Verdict) =>
  `${v.notConverged.length} not converged, ${v.pending.length} pending, ${v.lost.length} lost, ${v.orphaned.length} orphaned`;

export const kills: Scenario = {
  name: 'kills',
  title: 'Operator kills during churn',
  inShort: true,
  run: runKills,
};

async function runKills(ctx: ScenarioContext): Promise<Row[]> {
  const p = plan(ctx.short);
  const seed = pickSeed(process.env);
  ctx.log(`seed ${seed} (CHAOS_SEED=${seed} repeats the choices); ${p.crs} CRs, ${p.kills} kills`);
  const churnRand = seededRandom(seed);
  const killRand = seededRandom(seed ^ 0x5bd1e995);
  const k = kubeFor(ctx.plane.kubeconfig, join(ctx.plane.bin, 'kubectl'));
  await installSampleCrd(k, ctx.root);
  await createNamespace(k, NS);
  const watchesFile = join(ctx.work, 'watches.yaml');
  writeFileSync(
    watchesFile,
    `- group: ${KIND.group}\n  version: ${KIND.version}\n  kind: ${KIND.kind}\n  chart: ${join(ctx.root, 'charts/nginx')}\n`,
  );
  let started = 0;
  const start = () =>
    startOperator({
      root: ctx.root,
      kubeconfig: ctx.plane.kubeconfig,
      watchesFile,
      helm: ctx.helm,
      env: { WATCH_NAMESPACE: NS },
      logFile: join(ctx.work, `operator-${started++}.log`),
    });

  const cr = crs(k, NS);
  const live = new Map<string, NginxSpec>();
  const deleted = new Set<string>();
  const ops: Record<Op, number> = { change: 0, delete: 0, create: 0 };
  let created = 0;
  const create = async () => {
    const name = `web-${created++}`;
    const spec = randomSpec(churnRand, name);
    live.set(name, spec);
    await cr.create(name, { ...spec });
  };
  const churnOnce = async () => {
    const op = nextOp(churnRand, live.size, p.crs);
    const name = pick(churnRand, [...live.keys()]);
    if (op === 'create' || name === undefined) return create().then(() => ops.create++);
    if (op === 'delete') {
      live.delete(name);
      deleted.add(name);
      await cr.delete(name);
    } else {
      const spec = randomSpec(churnRand, `${name} #${ops.change}`);
      live.set(name, spec);
      await cr.patchSpec(name, { ...spec });
    }
    ops[op]++;
  };

  let op: OperatorHandle = start();
  const stopAll = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stopAll.signal]);
  const tally = { kills: 0, crashed: 0, withHelm: 0, recovered: 0, lastKill: performance.now() };
  const recoveries = (o: OperatorHandle) => o.logged('Recovered stuck release').length;
  try {
    for (let i = 0; i < p.crs; i++) await create();
    const churning = (async () => {
      while (!signal.aborted) {
        await sleep(between(churnRand, ...p.churnDelayMs), signal).catch(() => undefined);
        if (!signal.aborted) await churnOnce();
      }
    })();
    const killing = (async () => {
      for (let i = 0; i < p.kills; i++) {
        await sleep(between(killRand, ...p.killDelayMs), signal);
        // Half of the kills wait for a helm child first, so that many hit helm mid-run; the rest land anywhere.
        if (killRand() < 0.5) {
          await until('a helm child', async () => groupMembers(op.pid).some(isHelm), {
            timeoutMs: 5_000,
            everyMs: 20,
            signal,
          }).catch(() => undefined);
        }
        const members = groupMembers(op.pid);
        if (!members.some((m) => m.pid === op.pid)) tally.crashed++; // it had exited on its own
        // Counted by the /proc scan that finds leftover helm at the end, so that this row also shows it sees helm.
        const helm = planeHelmProcesses(ctx.helm, ctx.plane.kubeconfig).filter((h) => h.pgid === op.pid).length;
        if (helm > 0) tally.withHelm++;
        await op.killGroup();
        tally.recovered += recoveries(op);
        tally.kills++;
        tally.lastKill = performance.now();
        op = start();
        ctx.log(`kill ${tally.kills}/${p.kills}: ${members.length} processes in the group (${helm} helm)`);
      }
    })();
    // Either loop failing stops the other; the churn stops with the last kill.
    const settled = await Promise.allSettled([
      killing.finally(() => stopAll.abort()),
      churning.catch((err: unknown) => {
        stopAll.abort();
        throw err;
      }),
    ]);
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    ctx.log(`churn done: ${ops.change} spec changes, ${ops.create} creates, ${ops.delete} deletes; ${live.size} live`);

    const t0 = tally.lastKill;
    let verdict: Verdict | undefined;
    let polls = 0;
    let leftover: { pid: number; pgid: number }[] = [];
    const reached = await until(
      'every CR converged after the last kill',
      async () => {
        verdict = await inspect(k, NS, new Set(live.keys()), deleted);
        if (polls++ % 10 === 0) ctx.log(`after the last kill: ${summary(verdict)}`);
        leftover = planeHelmProcesses(ctx.helm, ctx.plane.kubeconfig);
        return converged(verdict) && leftover.length === 0;
      },
      { timeoutMs: p.deadlineMs - (performance.now() - t0), everyMs: 1_000, signal: ctx.signal },
    ).then(
      () => true,
      (err: unknown) => {
        ctx.signal.throwIfAborted();
        ctx.log(String(err));
        return false;
      },
    );
    const convergeMs = performance.now() - t0;
    if (!verdict) throw new Error('the cluster could not be read after the last kill');
    if (!reached) ctx.log(`not converged: ${JSON.stringify(verdict)}; helm left: ${JSON.stringify(leftover)}`);
    const alive = groupMembers(op.pid).some((m) => m.pid === op.pid);
    const survived = tally.kills - tally.crashed - (alive ? 0 : 1);
    const v = verdict;
    const recovered = tally.recovered + recoveries(op);
    const ready = live.size - v.notConverged.length;
    return [
      row('kills survived (operator and helm SIGKILLed as a group)', survived, String(p.kills), survived === p.kills),
      row('kills that caught helm running', `${tally.withHelm} of ${tally.kills}`, '', true),
      row('churn (seed)', `${ops.change} changes, ${ops.create} creates, ${ops.delete} deletes (${seed})`, '', true),
      row(
        'convergence after the last kill',
        reached ? seconds(convergeMs) : `not within ${seconds(convergeMs)}`,
        `≤ ${seconds(p.deadlineMs)}`,
        reached,
      ),
      row(
        'live CRs Deployed at their generation, spec applied',
        `${ready} of ${live.size}`,
        String(live.size),
        ready === live.size,
      ),
      row('pending releases (latest revision pending-*)', brief(v.pending), '0', v.pending.length === 0),
      row('pending releases recovered by a restarted operator', recovered, '', true),
      row('older revisions left pending-* by helm rollbacks', brief(v.stalePending, 3), '', true),
      row('lost objects (of live CRs)', brief(v.lost), '0', v.lost.length === 0),
      row(`orphaned objects (of ${deleted.size} deleted CRs)`, brief(v.orphaned), '0', v.orphaned.length === 0),
      row('leftover helm processes', leftover.length, '0', leftover.length === 0),
    ];
  } finally {
    stopAll.abort();
    await op.stop().catch((err: unknown) => ctx.log(`stopping the operator: ${String(err)}`));
  }
}
