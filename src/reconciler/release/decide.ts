// Decides what one reconcile does with helm, operator-sdk style but without a dry-run: the release's named state
// (Flux's names), then one switch from state to action: install when there is no deployed revision, upgrade when the
// inputs' fingerprint or the latest revision differ from the deployed one or an upgrade is forced, a check (one
// dry-run, adoption.ts) when the deployed record has no fingerprint, else nothing; and names the condition of each
// outcome. Pure; called by release/step.ts and settle.ts.
import type { HistorySummary } from '../../helm/history.js';
import type { StoredRelease } from '../../records/types.js';
import { conditions } from '../../status/condition-catalogue.js';
import { isRenderError } from '../classify.js';
import { FINGERPRINT_LABEL } from '../inputs/fingerprint.js';
import type { FailureCondition } from '../status/status.js';
import type { ReleaseAction } from '../types.js';
import { AdoptionCheckError } from './adoption.js';

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
 * - `Unadopted`: deployed and the newest revision, but its record has no fingerprint at all: installed by
 *   operator-sdk (or by this operator before it labelled its records), so whether it is in sync is not known;
 * - `OutOfSync`: deployed, but from other inputs (fingerprint), or a failed upgrade recorded on top of it;
 * - `InSync`: deployed from these very inputs.
 */
export type ReleaseState = 'Absent' | 'Failed' | 'Unadopted' | 'OutOfSync' | 'InSync';

export function releaseState({ state, history, fingerprint }: ReleaseFacts): ReleaseState {
  if (!state.deployed) return state.latest ? 'Failed' : 'Absent';
  if (state.latest !== state.deployed) return 'OutOfSync';
  // No record for it in the history read (a release just recovered, whose state was read again): upgraded, as before.
  const record = history.find((h) => h.release === state.deployed);
  if (!record) return 'OutOfSync';
  const label = record.labels[FINGERPRINT_LABEL];
  if (label === undefined) return 'Unadopted';
  return label === fingerprint ? 'InSync' : 'OutOfSync';
}

/** What to do: a helm action, or `check` an Unadopted release first (adoption.ts), as operator-sdk's dry run. */
export type Decision = ReleaseAction | 'check';

/**
 * The one switch from a release state to the decision: a forced upgrade (force-upgrade-at) upgrades InSync too,
 * and an Unadopted release without a check.
 */
export function actionForState(s: ReleaseState, force: boolean): Decision {
  switch (s) {
    case 'Absent':
    case 'Failed':
      return 'install';
    case 'OutOfSync':
      return 'upgrade';
    case 'Unadopted':
      return force ? 'upgrade' : 'check';
    case 'InSync':
      return force ? 'upgrade' : 'none';
  }
}

export function decideReleaseAction(facts: ReleaseFacts): Decision {
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
 * once a release is deployed (its dry-run upgrade fails first), as is a failed adoption check (that dry run itself),
 * and a first install's own failure, render errors included, is ReleaseFailed/InstallError. `failure` is the action's own error (not its remediation's).
 */
export function failedStepCondition(action: ReleaseAction, failure: unknown, message: string): FailureCondition {
  if (failure instanceof AdoptionCheckError) return conditions.irreconcilable(message);
  if (action !== 'install' && isRenderError(failure)) return conditions.irreconcilable(message);
  return conditions.releaseFailed(failureReason(action), message);
}
