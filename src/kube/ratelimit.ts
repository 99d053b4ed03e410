// Client-side request rate limit, like client-go's token bucket (QPS + burst): every API request takes a token
// first, so a reconcile storm cannot flood the API server. Used by kube/rest.ts.
// Waits only through the injected Clock; it never schedules timers of its own.

import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';

export interface TokenBucketOptions {
  /** Sustained requests per second; Infinity disables the limit. */
  readonly qps: number;
  /** Requests allowed at once after an idle period (the bucket size); ≥ 1. */
  readonly burst: number;
  readonly clock: Clock;
}

export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions) {
    const { qps, burst, clock } = options;
    if (!(qps > 0)) throw new ConfigError(`client qps must be a positive number (or Infinity), got ${qps}`);
    if (!Number.isSafeInteger(burst) || burst < 1) {
      throw new ConfigError(`client burst must be an integer ≥ 1, got ${burst}`);
    }
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /**
   * Resolves when the caller may send one request. Tokens are reserved in arrival order (the count may go
   * negative: each waiter waits for its own token), so waiters are served first come, first served. Rejects with
   * `signal.reason` on abort, and hands the reserved token back.
   */
  take(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#qps === Number.POSITIVE_INFINITY) return Promise.resolve();
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) * this.#qps) / 1000);
    this.#last = now;
    this.#tokens -= 1;
    if (this.#tokens >= 0) return Promise.resolve();
    const waitMs = Math.ceil((-this.#tokens * 1000) / this.#qps);
    return this.#clock.sleep(waitMs, signal).catch((err: unknown) => {
      this.#tokens += 1;
      throw err;
    });
  }
}
