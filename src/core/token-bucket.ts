// The one token bucket: `capacity` tokens, refilled at `amount` per `periodMs` of elapsed time. Used by the kube
// client's request limit (kube/ratelimit.ts, which waits for a reserved token) and the per-object Event limit
// (events/correlator.ts, which drops). Pure bookkeeping: time is passed in; it never reads a clock or sleeps.

export interface TokenBucketOptions {
  /** The bucket size: tokens available at once after an idle period. */
  readonly capacity: number;
  /** Tokens added back per `periodMs`. */
  readonly amount: number;
  readonly periodMs: number;
  /** The time the bucket starts full, in ms. */
  readonly now: number;
}

export class TokenBucket {
  readonly #o: TokenBucketOptions;
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions) {
    this.#o = options;
    this.#tokens = options.capacity;
    this.#last = options.now;
  }

  /** Takes one token if a whole one is there; false (nothing taken) otherwise. */
  tryTake(now: number): boolean {
    this.#refill(now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /**
   * Reserves one token, going into debt when none is left (each reservation waits for its own token, so callers
   * are served in arrival order). Returns how long to wait before using it, in ms (0: at once).
   */
  reserve(now: number): number {
    this.#refill(now);
    this.#tokens -= 1;
    if (this.#tokens >= 0) return 0;
    return Math.ceil((-this.#tokens * this.#o.periodMs) / this.#o.amount);
  }

  /** Hands a reserved token back (its caller gave up waiting). */
  unreserve(): void {
    this.#tokens += 1;
  }

  /** Adds the tokens earned since the last call, up to capacity; time going backwards earns nothing. */
  #refill(now: number): void {
    const earned = (Math.max(0, now - this.#last) * this.#o.amount) / this.#o.periodMs;
    this.#tokens = Math.min(this.#o.capacity, this.#tokens + earned);
    this.#last = Math.max(this.#last, now);
  }
}
