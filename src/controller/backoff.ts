// Per-key exponential backoff for rate-limited requeues, like client-go's ItemExponentialFailureRateLimiter:
// the n-th consecutive failure of a key waits base * 2^n ms, capped at max (core/backoff.ts's formula). Used by
// WorkQueue.addRateLimited. Pure bookkeeping: it never schedules timers or reads the clock.

import { backoffDelay } from '../core/backoff.js';
import { ConfigError } from '../core/errors.js';

/** What WorkQueue needs from a rate limiter; ExponentialBackoff is the default implementation. */
export interface RateLimiter<K extends string = string> {
  /** The delay before the key's next attempt; counts one more failure for the key. */
  when(key: K): number;
  /** Clears the key's failure count (after a success or when giving up). */
  forget(key: K): void;
  /** How many failures are counted for the key since the last forget(). */
  failures(key: K): number;
}

export interface ExponentialBackoffOptions {
  /** Delay after the first failure, in ms. @default 5 */
  readonly baseMs?: number;
  /** Upper bound for any delay, in ms. @default 1_000_000 (1000 s) */
  readonly maxMs?: number;
}

export class ExponentialBackoff<K extends string = string> implements RateLimiter<K> {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<K, number>();

  constructor(options: ExponentialBackoffOptions = {}) {
    const { baseMs = 5, maxMs = 1_000_000 } = options;
    if (!Number.isFinite(baseMs) || baseMs <= 0) {
      throw new ConfigError(`backoff baseMs must be a positive number of milliseconds, got ${baseMs}`);
    }
    if (!Number.isFinite(maxMs) || maxMs < baseMs) {
      throw new ConfigError(`backoff maxMs must be a number ≥ baseMs (${baseMs}), got ${maxMs}`);
    }
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(key: K): number {
    const exponent = this.#failures.get(key) ?? 0;
    this.#failures.set(key, exponent + 1);
    return backoffDelay(exponent, { baseMs: this.#baseMs, maxMs: this.#maxMs });
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  failures(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}
