// The operator's error tree: every error has a stable `code` from the closed set in core/codes.ts (and the error
// table of docs/reference.md) and keeps its `cause`. TerminalError means "do not retry"; every other error is
// retried with per-key backoff. Imported by every layer; imports only core/codes.ts.
import type { ConfigCode, ErrorCode } from './codes.js';

export abstract class OperatorError extends Error {
  abstract readonly code: ErrorCode;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad configuration (flags, watches.yaml, environment): reported at startup, before touching the cluster. */
export class ConfigError extends OperatorError {
  readonly code: ConfigCode;
  constructor(message: string, options?: ErrorOptions & { code?: ConfigCode }) {
    super(message, options);
    this.code = options?.code ?? 'CONFIG_INVALID';
  }
}

/** A reconcile failure that retrying cannot fix; it is logged and recorded but not requeued with backoff. */
export class TerminalError extends OperatorError {
  readonly code = 'TERMINAL';
}

export function isTerminal(err: unknown): boolean {
  return err instanceof TerminalError;
}

/** A retryable failure that asks the work queue to wait at least `retryAfterMs` before the next attempt. */
export class RetryLaterError extends OperatorError {
  readonly code: ErrorCode;
  readonly retryAfterMs: number;
  /** `code`: the failure's own code (e.g. HELM_COMMAND_FAILED), so logs show it rather than RETRY_LATER. */
  constructor(message: string, retryAfterMs: number, options?: ErrorOptions & { code?: ErrorCode }) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
    this.code = options?.code ?? 'RETRY_LATER';
  }
}

export function retryAfterMs(err: unknown): number | undefined {
  return err instanceof RetryLaterError ? err.retryAfterMs : undefined;
}
