// A failed helm step: the status draft marked failed (Irreconcilable for a chart that no longer renders, else
// ReleaseFailed) with the release deployed after the remediation, and the error to throw for a retry after the release
// backoff. Called by step.ts; never runs helm (it reads the records once).
import { errFields } from '../../core/error-fields.js';
import { failureMessage } from '../classify.js';
import type { Inputs } from '../inputs/inputs.js';
import type { HelmReconcilerOptions } from '../options.js';
import { retryAfterFailure } from '../retry.js';
import type { ReconcileRun } from '../run.js';
import { markFailed } from '../status/draft.js';
import { withDeployedRelease } from '../status/status.js';
import type { StatusReleaseMemo } from '../status/status-manifest.js';
import type { HelmAppStatus, ReleaseAction } from '../types.js';
import { type ActionContext, summary } from './action.js';
import { failedStepCondition } from './decide.js';
import { actionFailure } from './remediation-error.js';

export interface FailureDeps extends Pick<HelmReconcilerOptions, 'releaseBackoff'> {
  readonly statusRelease: StatusReleaseMemo;
}

/**
 * Records a failed helm step in the status (Irreconcilable for a chart that no longer renders with these values,
 * else ReleaseFailed) and returns the error to throw: retry after the release backoff; as is when aborted.
 */
export function failed(
  run: ReconcileRun,
  d: FailureDeps,
  step: { action: ReleaseAction; err: unknown },
  base: HelmAppStatus,
) {
  if (run.signal.aborted) return step.err;
  const message = failureMessage(step.err);
  const failed = markFailed(run, base, failedStepCondition(step.action, actionFailure(step.err), message));
  const backoff = d.releaseBackoff ? { backoff: d.releaseBackoff } : {};
  return retryAfterFailure({ key: run.key, message, cause: step.err, failures: failed.failures ?? 1, ...backoff });
}

/**
 * `base` with status.deployedRelease as Helm's records show it after a failure: the rollback of a failed upgrade is
 * a new deployed revision, and a failed install that was uninstalled leaves none. Unchanged when the records cannot
 * be read (or the reconcile was aborted): the failure is what the status reports then.
 */
export async function afterFailure(
  ctx: ActionContext,
  run: ReconcileRun,
  d: FailureDeps,
  inputs: Inputs,
  base: HelmAppStatus,
): Promise<HelmAppStatus> {
  if (run.signal.aborted) return base;
  try {
    const { deployed } = await summary(ctx);
    const shown = run.updater.shown.deployedRelease;
    return withDeployedRelease(base, deployed && d.statusRelease.get(run.key, deployed, inputs.secrets, shown));
  } catch (err) {
    run.log.debug({ release: ctx.run.name, err: errFields(err) }, 'Cannot read the release after its failure');
    return base;
  }
}
