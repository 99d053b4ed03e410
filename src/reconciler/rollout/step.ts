// The reconciler's side of the chart rollout (chart-rollout/gate.ts): whether an upgrade is chart-driven (the deployed
// release's stored values equal the new ones), running it through the gate, and the ChartRollout condition, events and
// requeue of a held CR. Called by release/step.ts and settle.ts; pure but for the gate and the updater it is handed.

import type { RolloutHold } from '../../chart-rollout/gate.js';
import { conditions } from '../../conditions/condition-catalogue.js';
import { findCondition, removeCondition, setCondition } from '../../conditions/conditions.js';
import type { Outcome } from '../../controller/contract.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { StoredRelease } from '../../records/types.js';
import type { ReconcileRun } from '../run.js';
import type { ChartRollout, HelmAppStatus } from '../types.js';

export const CHART_ROLLOUT = 'ChartRollout';

export interface ChartDrivenFacts {
  /** The deployed revision's record (its `config` is the values it was installed or upgraded with). */
  readonly deployed: StoredRelease | undefined;
  /** The values this reconcile would pass to helm. */
  readonly values: Readonly<Record<string, unknown>>;
  /** A `force-upgrade-at` request: the CR's own, never held. */
  readonly force: boolean;
}

/**
 * Whether an upgrade the fingerprint asks for comes from the operator (its chart or render options) rather than the
 * CR: the deployed release was made with exactly these values. Helm stores them as `config` (what `--values` gave,
 * so the spec merged with overrides and values-from); its JSON round trip keeps every value the CR's JSON can hold.
 * Any doubt (no record, no config) counts as the CR's own change, which is never held.
 */
export function chartDriven({ deployed, values, force }: ChartDrivenFacts): boolean {
  const config = deployed?.release.config;
  if (force || config === undefined) return false;
  try {
    return canonicalJson(config) === canonicalJson(values);
  } catch {
    return false;
  }
}

export interface RolloutStep extends ChartDrivenFacts {
  /** The watch's gate. @default none: nothing is held */
  readonly gate: ChartRollout | undefined;
  /** "namespace/name" of the CR. */
  readonly key: string;
  /** The chart digest this upgrade installs (ChartDigestMemo). */
  readonly digest: () => Promise<string>;
  readonly signal: AbortSignal;
}

export type Gated<T> = { readonly value: T } | { readonly hold: RolloutHold };

/**
 * Runs `upgrade` at once when it is the CR's own change; a chart-driven one only when the gate admits it, telling
 * the gate how it ended (a throw after the signal aborted is `aborted`, any other `failure`).
 */
export async function throughRollout<T>(o: RolloutStep, upgrade: () => Promise<T>): Promise<Gated<T>> {
  if (!o.gate) return { value: await upgrade() };
  if (!chartDriven(o)) {
    o.gate.pass(o.key);
    return { value: await upgrade() };
  }
  const admission = o.gate.admit(o.key, await o.digest());
  if ('hold' in admission) return admission;
  try {
    const value = await upgrade();
    admission.done('success');
    return { value };
  } catch (err) {
    admission.done(o.signal.aborted ? 'aborted' : 'failure');
    throw err;
  }
}

/**
 * The status with ChartRollout=True/<reason> while held (its lastTransitionTime kept from `shown`), or without it.
 * Operator-sdk's conditions are left as they are: the deployed release is still the one deployed.
 */
export function withRolloutHold(
  s: HelmAppStatus,
  hold: RolloutHold | undefined,
  shown: HelmAppStatus,
  now: number,
): HelmAppStatus {
  const without = removeCondition(s.conditions, CHART_ROLLOUT);
  if (!hold) return without.length === s.conditions.length ? s : { ...s, conditions: without };
  const prev = findCondition(shown.conditions, CHART_ROLLOUT);
  const input = conditions.chartRollout(hold.reason, hold.message);
  return { ...s, conditions: setCondition(prev ? [...without, prev] : without, input, now) };
}

export function settleRollout(
  run: ReconcileRun,
  o: { readonly status: HelmAppStatus; readonly hold: RolloutHold | undefined; readonly requeue: Outcome },
): Outcome {
  const { updater } = run;
  const { hold } = o;
  const before = findCondition(updater.shown.conditions, CHART_ROLLOUT);
  updater.setStatus(withRolloutHold(o.status, hold, updater.shown, run.now()));
  if (!hold) return o.requeue;
  if (before?.reason !== hold.reason) {
    updater.afterApply(() => {
      run.log.info({ reason: hold.reason }, 'Chart rollout: holding the upgrade');
      const type = hold.reason === 'Halted' ? 'Warning' : 'Normal';
      run.note(type, `ChartRollout${hold.reason}`, hold.message);
    });
  }
  const delays = [hold.retryAfterMs, o.requeue.requeueAfterMs].filter((d): d is number => d !== undefined && d > 0);
  return delays.length === 0 ? {} : { requeueAfterMs: Math.min(...delays) };
}
