// The error of a failed install or upgrade whose remediation (uninstalling the failed install, rolling back the
// failed upgrade) failed too: an AggregateError of both that keeps the failure as `cause` and carries its code, so
// neither is lost and the code reported stays the failure's. Thrown by install.ts and upgrade.ts; read by step.ts.
import { type ErrorCode, isErrorCode } from '../../core/codes.js';
import { failureMessage } from '../classify.js';

export type Remediation = 'uninstall' | 'rollback';

export class RemediationFailedError extends AggregateError {
  /** The failed action's code (absent when it had none). */
  readonly code?: ErrorCode;
  /** What install or upgrade threw. */
  readonly failure: unknown;
  /** What the uninstall or rollback threw. */
  readonly remediationError: unknown;

  constructor(failure: unknown, remediation: Remediation, remediationError: unknown) {
    const message = `${failureMessage(failure)}; the ${remediation} failed too: ${failureMessage(remediationError)}`;
    super([failure, remediationError], message, { cause: failure });
    this.name = 'RemediationFailedError';
    this.failure = failure;
    this.remediationError = remediationError;
    const code = (failure as { code?: unknown } | undefined)?.code;
    if (isErrorCode(code)) this.code = code;
  }
}

/** What install or upgrade threw, whether or not its remediation failed too. */
export function actionFailure(err: unknown): unknown {
  return err instanceof RemediationFailedError ? err.failure : err;
}
