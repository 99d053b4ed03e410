// Client-side request rate limit, like client-go's token bucket (QPS + burst): every API request takes a token
// first, so a reconcile storm cannot flood the API server. Used by kube/rest.ts.
// The bucket is core/token-bucket.ts; this adds the waiting. Waits only through the injected Clock; it never
// schedules timers of its own.

import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { TokenBucket as Bucket } from '../core/token-bucket.js';

export interface TokenBucketOptions {
  /** Sustained requests per second; Infinity disables the limit. */
  readonly qps: number;
  /** Requests allowed at once after an idle period (the bucket size); ≥ 1. */
  readonly burst: number;
  readonly clock: Clock;
}

export class TokenBucket {
  readonly #qps: number;
  readonly #clock: Clock;
  readonly #bucket: Bucket;

  constructor(options: TokenBucketOptions) {
    const { qps, burst, clock } = options;
    if (!(qps > 0)) throw new ConfigError(`client qps must be a positive number (or Infinity), got ${qps}`);
    if (!Number.isSafeInteger(burst) || burst < 1) {
      throw new ConfigError(`client burst must be an integer ≥ 1, got ${burst}`);
    }
    this.#qps = qps;
    this.#clock = clock;
    this.#bucket = new Bucket({ capacity: burst, amount: qps, periodMs: 1000, now: clock.now() });
  }

  /**
   * Resolves when the caller may send one request. Tokens are reserved in arrival order (the count may go
   * negative: each waiter waits for its own token), so waiters are served first come, first served. Rejects with
   * `signal.reason` on abort, and hands the reserved token back.
   */
  take(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#qps === Number.POSITIVE_INFINITY) return Promise.resolve();
    const waitMs = this.#bucket.reserve(this.#clock.now());
    if (waitMs === 0) return Promise.resolve();
    return this.#clock.sleep(waitMs, signal).catch((err: unknown) => {
      this.#bucket.unreserve();
      throw err;
    });
  }
}
