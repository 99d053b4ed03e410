// Decides what one reconcile does with helm, operator-sdk style but without a dry-run: install when there is no
// deployed revision, upgrade when the inputs' fingerprint or the latest revision differ from the deployed one or an
// upgrade is forced, else nothing; and names the condition of each outcome. Pure; called by release/step.ts and settle.ts.
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

export function decideReleaseAction({ state, history, fingerprint, force = false }: ReleaseFacts): ReleaseAction {
  if (!state.deployed) return 'install';
  const deployed = history.find((h) => h.release === state.deployed);
  if (deployed?.labels[FINGERPRINT_LABEL] !== fingerprint || state.latest !== state.deployed) return 'upgrade';
  return force ? 'upgrade' : 'none';
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
