// The named contributions a reconcile makes to its status draft (the run's updater): Irreconcilable inputs, a failed
// helm step, a deployed release. Each builds on the run's base status with status.ts' pure builders and queues what
// follows the write (its event). Called by the phases; never writes to the API server itself (the hub applies).
import { conditions } from '../../status/condition-catalogue.js';
import type { ReconcileRun } from '../run.js';
import type { DeployedRelease, HelmAppStatus, ReadyState } from '../types.js';
import { deployedStatus, type FailureCondition, failedStatus, withoutFailures, withReadiness } from './status.js';

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
    readonly ready: ReadyState | undefined;
  },
): HelmAppStatus {
  const now = run.now();
  return withReadiness(deployedStatus(withoutFailures(base), d.reason, d.notes, d.release, now), d.ready, now);
}
