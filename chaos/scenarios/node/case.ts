// What every case of the node group shares: its context (the scenario's, a Kube client, the fleet of CRs), the
// churn around a fault, and the four figures each case reports (time to converge, CRs lost, releases left pending-*,
// double writes) as rows with their bars. Pure glue for the cases; starts nothing it does not stop.
import type { Kube } from '../../kit/kube.ts';
import { type Row, row, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { brief } from '../kills/checks.ts';
import type { Fleet, Verdict } from './fleet.ts';

export interface NodeCase {
  /** For --cases= ("kubelet", "containerd", "oom", "evict", "partition", "imagepull", "hook"). */
  readonly name: string;
  readonly title: string;
  run(c: CaseContext): Promise<Row[]>;
}

export interface CaseContext {
  readonly ctx: ScenarioContext;
  readonly k: Kube;
  readonly fleet: Fleet;
  readonly log: (line: string) => void;
}

/** The convergence deadline after a fault, for 50 CRs on 2 cores. */
export const CONVERGE_MS = 240_000;

/** The four figures of a case, after `fault` ran with churn around it: churn starts, fault, churn stops, converge. */
export async function churnAround(
  c: CaseContext,
  fault: () => Promise<void>,
  o: { readonly beforeMs?: number; readonly afterMs?: number } = {},
): Promise<{ convergeMs: number | undefined; verdict: Verdict; churn: string }> {
  const { setTimeout: sleep } = await import('node:timers/promises');
  const churn = c.fleet.churn(c.ctx.signal);
  let tally: { changes: number; deletes: number; creates: number } | undefined;
  try {
    await sleep(o.beforeMs ?? 5_000, undefined, { signal: c.ctx.signal });
    await fault();
    await sleep(o.afterMs ?? 10_000, undefined, { signal: c.ctx.signal });
  } finally {
    tally = await churn.stop();
  }
  const { ms, verdict } = await c.fleet.converge(CONVERGE_MS, c.ctx.signal);
  const summary = `${tally.changes} changes, ${tally.deletes} deletes, ${tally.creates} creates`;
  c.log(`churn ${summary}; converged ${ms === undefined ? 'never' : seconds(ms)}`);
  return { convergeMs: ms, verdict, churn: summary };
}

/** The rows every case reports. */
export function tallyRows(
  title: string,
  r: { convergeMs: number | undefined; verdict: Verdict; churn?: string },
): Row[] {
  const { verdict: v } = r;
  return [
    ...(r.churn ? [row(`${title}: churn during the fault`, r.churn, '', true)] : []),
    row(
      `${title}: time to converge (every CR Deployed with its spec, deleted ones gone)`,
      r.convergeMs === undefined ? `not within ${seconds(CONVERGE_MS)}` : seconds(r.convergeMs),
      `≤ ${seconds(CONVERGE_MS)}`,
      r.convergeMs !== undefined,
    ),
    row(`${title}: CRs lost (not converged)`, brief(v.unconverged), '0', v.unconverged.length === 0),
    row(`${title}: releases left pending-*`, brief(v.pending), '0', v.pending.length === 0),
    row(`${title}: double writes`, brief(v.doubleWrites), '0', v.doubleWrites.length === 0),
    row(`${title}: upgrades retried after a failed revision (not double writes)`, brief(v.retries, 3), '', true),
  ];
}
