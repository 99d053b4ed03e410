// Phases 3 and 4 of the bench: BENCH_IDLE_PERIODS reconcile periods with the settled CRs idle (helm processes,
// reconciles, operator CPU), then the operator's and kube-apiserver's RSS and the objects the dependent informers
// cache. Called by operator-bench.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { memMiB } from '../../test/support/proc.ts';
import { opCpu, opPids } from '../fleet.ts';
import { apiserverRssMiB, dependentObjectsCached, IDLE_PERIODS, log, PERIOD, PERIOD_MS, signal } from '../kit.ts';
import { cpuWindow } from '../proc.ts';
import type { BenchContext } from './context.ts';

export async function idleWindow(b: BenchContext) {
  const { o } = b;
  const idleMs = IDLE_PERIODS * PERIOD_MS;
  log(`phase 3: idle for ${idleMs / 1000}s (${IDLE_PERIODS} × ${PERIOD})`);
  const before = { helm: o.helmCalls().length, rec: new Map(o.stats.reconciles) };
  const window = cpuWindow(opPids(o));
  const idleT0 = performance.now();
  await sleep(idleMs, undefined, { signal });
  const idle = {
    helm: o.helmCalls().slice(before.helm),
    rec: [...o.stats.reconciles].map(([k, n]): [string, number] => [k, n - (before.rec.get(k) ?? 0)]),
    cpu: opCpu(window.end().cpu).own,
    s: (performance.now() - idleT0) / 1000,
  };
  return {
    idle,
    rssEnd: o.pids.map((pid) => memMiB(pid)),
    hwm: o.pids.map((pid) => memMiB(pid, 'VmHWM')),
    apiRssEnd: await apiserverRssMiB(b.dir),
    cached: await dependentObjectsCached(o.stats.metrics),
  };
}
