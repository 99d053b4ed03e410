// A pool of workers draining a WorkQueue: each key taken goes to reconcileHandler (reconcile-handler.ts), which applies the
// requeue rules of contract.ts (success forgets the key's backoff and honours requeueAfterMs; failure requeues it
// rate-limited, or after a RetryLaterError's delay, unless it is a TerminalError).
// Called by controllers; it always calls done(key) for every key it took and never handles one key twice at once.

import { ConfigError } from '../core/errors.js';
import { type ReconcileHandlerOptions, reconcileHandler } from './reconcile-handler.js';

export interface RunWorkersOptions<K extends string = string> extends ReconcileHandlerOptions<K> {
  /** How many keys are handled in parallel: an integer ≥ 1. */
  readonly concurrency: number;
  /** Handed to handle(); also stops the workers from taking new keys. Handlers already running are awaited. */
  readonly signal: AbortSignal;
  /**
   * Stops the workers from taking new keys without aborting the handlers running (a graceful stop: they finish
   * under `signal`). @default `signal`
   */
  readonly stop?: AbortSignal;
  /** Keys it refuses are dropped and forgotten without a reconcile (sharding). @default every key */
  readonly admit?: (key: K) => boolean;
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
  const taking = options.stop ? AbortSignal.any([options.stop, options.signal]) : options.signal;
  await Promise.all(Array.from({ length: concurrency }, () => work(options, taking)));
}

async function work<K extends string>(options: RunWorkersOptions<K>, taking: AbortSignal): Promise<void> {
  for (;;) {
    const key = await options.queue.get(taking);
    if (key === undefined) return;
    try {
      if (options.admit?.(key) === false) options.queue.forget(key);
      else await reconcileHandler(options, key);
    } finally {
      options.queue.done(key);
    }
  }
}
