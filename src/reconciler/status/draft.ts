// The named contributions a reconcile makes to its status draft (the run's updater): Irreconcilable inputs, a failed
// helm step, a deployed release (and the event of a pod's cause in its Ready), spec values that shadow values-from ones. Each builds on the run's base status with status.ts' pure builders and queues what
// follows the write (its event). Called by the phases; never writes to the API server itself (the hub applies).
import { conditions, POD_WAIT_REASONS } from '../../conditions/condition-catalogue.js';
import { findCondition } from '../../conditions/conditions.js';
import type { ReconcileRun } from '../run.js';
import type { DeployedRelease, HelmAppStatus, Readiness } from '../types.js';
import {
  deployedStatus,
  type FailureCondition,
  failedStatus,
  withoutFailures,
  withReadiness,
  withShadowing,
} from './status.js';

/** Inputs that cannot be reconciled as they are: Irreconcilable with `message`, and a ReconcileError event. */
export function markIrreconcilable(run: ReconcileRun, message: string): void {
  run.updater.setStatus(failedStatus(run.base, conditions.irreconcilable(message), run.now()));
  run.updater.afterApply(() => run.note('Warning', 'ReconcileError', message));
}

/** A failed helm step on top of `base` (the requests it handled): the failure condition, counted; returns the status. */
export function markFailed(run: ReconcileRun, base: HelmAppStatus, failure: FailureCondition): HelmAppStatus {
  const failed = failedStatus(base, failure, run.now());
  run.updater.setStatus(failed);
  return failed;
}

/** A release as wanted: Deployed with the reason and notes, no failures, and Ready as its objects add up. */
export function deployed(
  run: ReconcileRun,
  base: HelmAppStatus,
  d: {
    readonly reason: 'InstallSuccessful' | 'UpgradeSuccessful';
    readonly notes: string;
    readonly release: DeployedRelease;
    readonly ready: Readiness | undefined;
  },
): HelmAppStatus {
  const now = run.now();
  return withReadiness(deployedStatus(withoutFailures(base), d.reason, d.notes, d.release, now), d.ready, now);
}

/**
 * ValuesShadowed on every status this reconcile writes (`message` names the keys; undefined: the spec shadows
 * nothing, and the condition goes), and a `ValuesShadowed` Warning event once the condition is written with a message
 * it did not show before: once per change, not per reconcile.
 */
export function noteShadowing(run: ReconcileRun, message: string | undefined): void {
  run.updater.amend((s) => withShadowing(s, message, run.now()));
  if (message === undefined || findCondition(run.updater.shown.conditions, 'ValuesShadowed')?.message === message) {
    return;
  }
  run.updater.afterApply(() => {
    if (findCondition(run.updater.shown.conditions, 'ValuesShadowed')?.message !== message) return; // not written
    run.note('Warning', 'ValuesShadowed', message);
    run.log.info({ reason: 'ValuesShadowed' }, 'Spec values shadow values-from values');
  });
}

/**
 * A Warning event named after a pod's waiting reason (`ImagePullBackOff`, `CrashLoopBackOff`, ...) when `status`
 * turns Ready False with it: once per episode, sent after the status carrying it is written, with the condition's
 * message (workload, pod and container names, never the image). `sent` remembers per CR the reason last sent until
 * Ready is True, so a reconcile that read a copy of the CR from before the write (the informer lags it by an event),
 * or a lookup that briefly found no cause, sends no second event; the shown status covers an operator restart.
 */
export function notePodCause(run: ReconcileRun, status: HelmAppStatus, sent: Map<string, string>): void {
  const next = findCondition(status.conditions, 'Ready');
  const reason = next?.reason;
  if (next?.status === 'True' || next === undefined) sent.delete(run.key);
  if (next?.status !== 'False' || reason === undefined || !(POD_WAIT_REASONS as readonly string[]).includes(reason)) {
    return;
  }
  const shown = findCondition(run.updater.shown.conditions, 'Ready');
  if ((shown?.status === 'False' && shown.reason === reason) || sent.get(run.key) === reason) return;
  run.updater.afterApply(() => {
    const written = findCondition(run.updater.shown.conditions, 'Ready');
    if (written?.status !== 'False' || written.reason !== reason || sent.get(run.key) === reason) return;
    sent.set(run.key, reason);
    run.note('Warning', reason, written.message ?? '');
    run.log.info({ reason, cause: written.message }, 'Release not ready');
  });
}
