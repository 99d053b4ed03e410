// Decides what one reconcile does with helm, operator-sdk style but without a dry-run: one switch from the release's
// named state (records/release-state.ts) to an action, and the condition of each outcome. Pure; called by release/step.ts and
// settle.ts; never names a state itself.

import { conditions } from '../../conditions/condition-catalogue.js';
import { type ReleaseState, releaseState, type StateFacts } from '../../records/release-state.js';
import { isRenderError } from '../classify.js';
import type { FailureCondition } from '../status/status.js';
import type { ReleaseAction } from '../types.js';
import { AdoptionCheckError } from './adoption.js';

/**
 * What to do: a helm action, `check` an Unadopted release first (adoption.ts, as operator-sdk's dry run), `recover`
 * a Locked one (recover.ts, then name its state again), or `leave` an Unmanaged one untouched (the CR Irreconcilable).
 */
export type Decision = ReleaseAction | 'check' | 'recover' | 'leave';

/**
 * The one switch from a release state (records/release-state.ts) to the decision: a forced upgrade (force-upgrade-at) upgrades
 * InSync too, and an Unadopted release without a check.
 */
export function actionForState(s: ReleaseState, force: boolean): Decision {
  switch (s) {
    case 'Absent':
    case 'Failed':
      return 'install';
    case 'Unmanaged':
      return 'leave';
    case 'Locked':
      return 'recover';
    case 'OutOfSync':
      return 'upgrade';
    case 'Unadopted':
      return force ? 'upgrade' : 'check';
    case 'InSync':
      return force ? 'upgrade' : 'none';
  }
}

/** `force`: a `force-upgrade-at` request is pending, upgrade even when nothing changed (requests.ts). */
export function decideReleaseAction(facts: StateFacts & { readonly force?: boolean }): Decision {
  return actionForState(releaseState(facts).state, facts.force ?? false);
}

/** The Deployed reason: that of the action taken, or with none, whether the deployed revision is the first. */
export function successReason(action: ReleaseAction, revision: number): 'InstallSuccessful' | 'UpgradeSuccessful' {
  if (action === 'install') return 'InstallSuccessful';
  if (action === 'upgrade') return 'UpgradeSuccessful';
  return revision === 1 ? 'InstallSuccessful' : 'UpgradeSuccessful';
}

/** The ReleaseFailed reason of a failed helm step (a failed recovery, before any action, counts as an install). */
export function failureReason(action: ReleaseAction): 'InstallError' | 'UpgradeError' {
  return action === 'upgrade' ? 'UpgradeError' : 'InstallError';
}

/**
 * The condition of a failed helm step, as operator-sdk writes it: a chart that does not render is Irreconcilable
 * once a release is deployed (its dry-run upgrade fails first), as is a failed adoption check (that dry run itself),
 * and a first install's own failure, render errors included, is ReleaseFailed/InstallError. `failure` is the action's own error (not its remediation's).
 */
export function failedStepCondition(action: ReleaseAction, failure: unknown, message: string): FailureCondition {
  if (failure instanceof AdoptionCheckError) return conditions.irreconcilable(message);
  if (action !== 'install' && isRenderError(failure)) return conditions.irreconcilable(message);
  return conditions.releaseFailed(failureReason(action), message);
}
