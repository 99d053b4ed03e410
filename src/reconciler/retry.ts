// The error a failed release step ends a reconcile with: retry later, after the release backoff for the CR's
// consecutive failures, keeping the failure as `cause` and its own code. Pure; called by release/step-failure.ts,
// inputs/values-from.ts and reconcileDeletion after they have recorded the failure in the status. Never puts values in
// the message.
import { type ErrorCode, isErrorCode } from '../core/codes.js';
import { RetryLaterError } from '../core/errors.js';
import { type BackoffPolicy, releaseRetryDelay } from './classify.js';

export interface RetryAfterFailureOptions {
  /** The CR's "namespace/name". */
  readonly key: string;
  /** failureMessage() of the failure, as in the condition. */
  readonly message: string;
  readonly cause: unknown;
  /** `failures` of the status just recorded. */
  readonly failures: number;
  readonly backoff?: BackoffPolicy;
}

export function retryAfterFailure(o: RetryAfterFailureOptions): RetryLaterError {
  const delay = releaseRetryDelay(o.failures, o.backoff);
  return new RetryLaterError(`${o.key}: ${o.message}`, delay, { cause: o.cause, ...codeOf(o.cause) });
}

/** The failure's own code, so that logs and metrics show e.g. HELM_COMMAND_FAILED rather than RETRY_LATER. */
function codeOf(err: unknown): { code?: ErrorCode } {
  const code = (err as { code?: unknown } | undefined)?.code;
  return isErrorCode(code) ? { code } : {};
}
