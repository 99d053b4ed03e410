// Decides what one reconcile does with helm, operator-sdk style but without a dry-run: the release's named state
// (Flux's names), then one switch from state to action: install when there is no deployed revision, upgrade when the
// inputs' fingerprint or the latest revision differ from the deployed one or an upgrade is forced, else nothing;
// and names the condition of each outcome. Pure; called by release/step.ts and settle.ts.
import type { HistorySummary } from '../../helm/history.js';
import type { StoredRelease } from '../../records/types.js';
import { conditions } from '../../status/condition-catalogue.js';
import { isRenderError } from '../classify.js';
import { FINGERPRINT_LABEL } from '../inputs/fingerprint.js';
import type { FailureCondition } from '../status/status.js';
import type { ReleaseAction } from '../types.js';

export interface ReleaseFacts {
  /** The summary of Helm's records, after any stuck release was recovered. */
  readonly state: HistorySummary;
  /** The records as read at the start of the reconcile, with their labels. */
  readonly history: readonly StoredRelease[];
  /** The fingerprint label of this reconcile's inputs (see fingerprintLabel). */
  readonly fingerprint: string;
  /** A `force-upgrade-at` request is pending: upgrade even when nothing changed (requests.ts). @default false */
  readonly force?: boolean;
}

/**
 * The release as a reconcile finds it, named as Flux's helm-controller names its states (a release stuck in
 * pending-* is Locked and recovered before this; one of another chart is Unmanaged and left alone, state.ts):
 * - `Absent`: no record at all;
 * - `Failed`: records, none of them deployed (a failed first install);
 * - `OutOfSync`: deployed, but from other inputs (fingerprint), or a failed upgrade recorded on top of it;
 * - `InSync`: deployed from these very inputs.
 */
export type ReleaseState = 'Absent' | 'Failed' | 'OutOfSync' | 'InSync';

export function releaseState({ state, history, fingerprint }: ReleaseFacts): ReleaseState {
  if (!state.deployed) return state.latest ? 'Failed' : 'Absent';
  const deployed = history.find((h) => h.release === state.deployed);
  if (deployed?.labels[FINGERPRINT_LABEL] !== fingerprint || state.latest !== state.deployed) return 'OutOfSync';
  return 'InSync';
}

/** The one switch from a release state to the action: a forced upgrade (force-upgrade-at) upgrades InSync too. */
export function actionForState(s: ReleaseState, force: boolean): ReleaseAction {
  switch (s) {
    case 'Absent':
    case 'Failed':
      return 'install';
    case 'OutOfSync':
      return 'upgrade';
    case 'InSync':
      return force ? 'upgrade' : 'none';
  }
}

export function decideReleaseAction(facts: ReleaseFacts): ReleaseAction {
  return actionForState(releaseState(facts), facts.force ?? false);
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
 * once a release is deployed (its dry-run upgrade fails first), and a first install's own failure, render errors
 * included, is ReleaseFailed/InstallError. `failure` is the action's own error (not its remediation's).
 */
export function failedStepCondition(action: ReleaseAction, failure: unknown, message: string): FailureCondition {
  if (action !== 'install' && isRenderError(failure)) return conditions.irreconcilable(message);
  return conditions.releaseFailed(failureReason(action), message);
}
