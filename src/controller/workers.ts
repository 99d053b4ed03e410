// A pool of workers draining a WorkQueue with controller-runtime's reconcileHandler semantics: success forgets the
// key's backoff (and honours requeueAfterMs), failure requeues it rate-limited (or after a RetryLaterError's delay)
// unless it is a TerminalError.
// Called by controllers; it always calls done(key) for every key it took and never handles one key twice at once.

import { ConfigError, isTerminal, retryAfterMs } from '../core/errors.js';
import type { WorkQueue } from './workqueue.js';

/** What a successful handle() asks for. */
export interface Outcome {
  /** Handle the key again after this many ms (> 0); absent, 0 or negative means no requeue. */
  readonly requeueAfterMs?: number;
}

export type Handler<K extends string = string> = (key: K, signal: AbortSignal) => Promise<Outcome>;

export interface RunWorkersOptions<K extends string = string> {
  readonly queue: WorkQueue<K>;
  /** How many keys are handled in parallel: an integer ≥ 1. */
  readonly concurrency: number;
  /** Handles one key; a throw means failure. Receives `signal` to stop early. */
  readonly handle: Handler<K>;
  /** Stops the workers from taking new keys; handlers already running are awaited. */
  readonly signal: AbortSignal;
  /**
   * Reports a failed handle() after the key was requeued (or, for a TerminalError, forgotten). A throw from it is
   * ignored so that a reporting bug cannot stop a worker. @default none
   */
  readonly onError?: (key: K, err: unknown) => void;
}

/**
 * Runs `concurrency` workers until the queue is shut down and drained or `signal` aborts, and resolves once every
 * worker has finished its current key. Rejects with a ConfigError, before taking any key, for a bad concurrency.
 * It does not shut the queue down itself.
 */
export async function runWorkers<K extends string>(options: RunWorkersOptions<K>): Promise<void> {
  const { concurrency } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(`worker concurrency must be an integer ≥ 1, got ${concurrency}`);
  }
  await Promise.all(Array.from({ length: concurrency }, () => work(options)));
}

async function work<K extends string>(options: RunWorkersOptions<K>): Promise<void> {
  for (;;) {
    const key = await options.queue.get(options.signal);
    if (key === undefined) return;
    try {
      await handleOne(options, key);
    } finally {
      options.queue.done(key);
    }
  }
}

async function handleOne<K extends string>(options: RunWorkersOptions<K>, key: K): Promise<void> {
  const { queue, handle, signal, onError } = options;
  let outcome: Outcome;
  try {
    outcome = await handle(key, signal);
  } catch (err) {
    const after = retryAfterMs(err);
    if (isTerminal(err)) queue.forget(key);
    else if (after !== undefined) queue.addAfter(key, after);
    else queue.addRateLimited(key);
    try {
      onError?.(key, err);
    } catch {
      // Reporting must not stop the worker; the error was already acted on above.
    }
    return;
  }
  queue.forget(key);
  const after = outcome.requeueAfterMs;
  if (after !== undefined && after > 0) queue.addAfter(key, after);
}
