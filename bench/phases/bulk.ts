// Phase 2 of the bench: BENCH_CRS CRs created at once: create→Deployed latency of each and the time until all are
// Deployed, the CPU (operators, helm, the plane) from the first create until settled, and the RSS once settled.
// Called by operator-bench.ts and, for each point of its grid, bench/scale.ts.

import { memMiB } from '../../test/support/proc.ts';
import { until } from '../../test/support/until.ts';
import { opCpu, opPids } from '../fleet.ts';
import { apiserverRssMiB, benchWait, CREATE_CONCURRENCY, createAndWait, log, NS, PERIOD_MS } from '../kit.ts';
import { cpuWindow, planePids } from '../proc.ts';
import type { BenchContext } from './context.ts';

export async function bulkCreates(b: BenchContext, workers: number) {
  const { o, names } = b;
  log(`phase 2: ${names.length} CRs at once (${CREATE_CONCURRENCY} creates in flight, ${workers} workers)`);
  const bulkWindow = cpuWindow({ ...opPids(o), apiserver: b.apiserver, ...planePids(b.dir) });
  const bulk =
    names.length > 0 ? await createAndWait(b.custom, b.bulkCrs, 'bulk', [...names], CREATE_CONCURRENCY) : undefined;
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
  await until(
    'the CRs to settle',
    () => {
      const helmStill = still(quiet.helm, o.helmCalls().length);
      const allStill = still(
        quiet.all,
        [...o.stats.reconciles.values()].reduce((a, c) => a + c, 0),
      );
      const periodOver = performance.now() - allDeployed > PERIOD_MS;
      return helmStill && ((allStill && reconciled()) || periodOver) ? true : undefined;
    },
    benchWait(250),
  );
  const settleMs = performance.now() - allDeployed;
  const window = bulkWindow.end().cpu;
  const fleet = opCpu(window);
  return {
    bulk,
    settleMs,
    cpu: { own: fleet.own, helm: fleet.children },
    window,
    rssSettled: o.pids.map((pid) => memMiB(pid)),
    apiRssSettled: await apiserverRssMiB(b.dir),
  };
}
