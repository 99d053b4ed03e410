// The reconcile contract, declared once: a Request (the CR's key), the Outcome a reconcile returns, the Reconciler
// interface, the errors that steer a retry, and the requeue rules that turn a result into a queue action and a
// metrics label (controller-runtime's reconcileHandler rules). Pure; imported by controller/ and reconciler/.

import { isTerminal, retryAfterMs } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

/** What to reconcile: "namespace/name" ("name" for a cluster-scoped kind). */
export type Request = string;

/** What a successful reconcile asks for. */
export interface Outcome {
  /** Reconcile the key again after this many ms (> 0); absent, 0 or negative means no requeue. */
  readonly requeueAfterMs?: number;
}

/** Brings one CR's world in line with its spec. A throw is a failure (see the requeue rules below). */
export interface Reconciler {
  reconcile(key: Request, signal: AbortSignal, log: Logger): Promise<Outcome>;
}

/** How a reconcile ended: its Outcome, or what it threw. */
export type Settled =
  | { readonly ok: true; readonly outcome: Outcome }
  | { readonly ok: false; readonly error: unknown };

/** controller_runtime_reconcile_total's result label. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** What the work queue does with the key once its reconcile ended. */
export type QueueAction =
  /** Success without requeue, or a TerminalError: clear the key's backoff. */
  | { readonly kind: 'forget' }
  /** Success with requeueAfterMs: clear the backoff, then add the key after the delay. */
  | { readonly kind: 'forget-then-add-after'; readonly ms: number }
  /** A RetryLaterError: add the key after its delay, keeping its failure count. */
  | { readonly kind: 'add-after'; readonly ms: number }
  /** Any other error: add the key after its per-key exponential backoff. */
  | { readonly kind: 'add-rate-limited' };

/** The requeue rules. */
export function queueAction(s: Settled): QueueAction {
  if (s.ok) {
    const after = s.outcome.requeueAfterMs;
    return after !== undefined && after > 0 ? { kind: 'forget-then-add-after', ms: after } : { kind: 'forget' };
  }
  const after = retryAfterMs(s.error);
  if (isTerminal(s.error)) return { kind: 'forget' };
  if (after !== undefined) return { kind: 'add-after', ms: after };
  return { kind: 'add-rate-limited' };
}

/** The metrics label: every throw is an error, a RetryLaterError included (controller-runtime counts each one). */
export function resultLabel(s: Settled): ReconcileResult {
  if (!s.ok) return 'error';
  const after = s.outcome.requeueAfterMs;
  return after !== undefined && after > 0 ? 'requeue_after' : 'success';
}

/** Where one controller reports its reconcile and workqueue metrics; implementations must not throw. */
export interface ControllerMetrics {
  /** The controller starts: its worker count and a live view of its queue depth. */
  init(maxConcurrent: number, depth: () => number): void;
  reconciled(result: ReconcileResult, seconds: number): void;
  activeWorkers(delta: 1 | -1): void;
  queueAdd(): void;
  queueGet(key: string, waitSeconds: number): void;
  queueDone(key: string, workSeconds: number): void;
  queueRetry(): void;
}
