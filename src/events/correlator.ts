// Decides what happens to one recorded Event, like client-go's EventCorrelator: a per-object token bucket drops
// floods, and an identical event seen again within the window becomes a count bump on the existing Event.
// Used by events/recorder.ts; the bucket is core/token-bucket.ts. Pure bookkeeping: it never reads the clock,
// schedules timers or talks to the API.

import { ConfigError } from '../core/errors.js';
import { remember, touch } from '../core/lru.js';
import { TokenBucket } from '../core/token-bucket.js';

export interface CorrelatorOptions {
  /** Events one object may emit at once (the bucket size). @default 25 */
  readonly burst?: number;
  /** Tokens added back per minute and object. @default 12 (one every 5 s) */
  readonly refillPerMinute?: number;
  /** An identical event within this long after the last one is aggregated. @default 600_000 (10 min) */
  readonly windowMs?: number;
  /**
   * Objects and distinct events remembered at most (each an LRU; the least recently seen go first). An event is also
   * forgotten once its window has passed, and an object once its bucket is full again. @default 4096
   */
  readonly maxEntries?: number;
}

export interface Observation {
  /** Identifies the involved object (the rate-limit bucket). */
  readonly objectKey: string;
  /** Identifies the event: object, type, reason and message (the aggregation key). */
  readonly eventKey: string;
  /** The current time in ms. */
  readonly now: number;
  /** Called only when a new Event is to be created: its name and namespace. */
  readonly target: () => EventTarget;
}

export interface EventTarget {
  readonly name: string;
  readonly namespace: string;
}

export type Decision =
  | { readonly action: 'create'; readonly target: EventTarget; readonly count: 1; readonly firstSeen: number }
  | { readonly action: 'patch'; readonly target: EventTarget; readonly count: number; readonly firstSeen: number }
  | { readonly action: 'drop'; readonly droppedForObject: number };

interface Bucket {
  readonly tokens: TokenBucket;
  dropped: number;
  /** When the object last emitted (then its bucket is full again `#refillMs` later, like a new one). */
  lastUsed: number;
}

interface Seen {
  readonly target: EventTarget;
  readonly firstSeen: number;
  count: number;
  lastSeen: number;
}

export class EventCorrelator {
  readonly #burst: number;
  readonly #refillPerMinute: number;
  readonly #windowMs: number;
  readonly #maxEntries: number;
  /** How long an unused bucket takes to refill completely. */
  readonly #refillMs: number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #seen = new Map<string, Seen>();

  constructor(options: CorrelatorOptions = {}) {
    const { burst = 25, refillPerMinute = 12, windowMs = 600_000, maxEntries = 4096 } = options;
    if (!Number.isSafeInteger(burst) || burst < 1) {
      throw new ConfigError(`event burst must be an integer ≥ 1, got ${burst}`);
    }
    if (!(refillPerMinute >= 0) || !Number.isFinite(refillPerMinute)) {
      throw new ConfigError(`event refillPerMinute must be a finite number ≥ 0, got ${refillPerMinute}`);
    }
    if (!(windowMs >= 0)) throw new ConfigError(`event windowMs must be ≥ 0, got ${windowMs}`);
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new ConfigError(`event maxEntries must be an integer ≥ 1, got ${maxEntries}`);
    }
    this.#burst = burst;
    this.#refillPerMinute = refillPerMinute;
    this.#windowMs = windowMs;
    this.#maxEntries = maxEntries;
    this.#refillMs = refillPerMinute > 0 ? (burst / refillPerMinute) * 60_000 : Number.POSITIVE_INFINITY;
  }

  /** Takes a token for the object (or drops), then creates a new Event or bumps the identical recent one. */
  observe(obs: Observation): Decision {
    this.#expire(obs.now);
    const bucket = touch(this.#buckets, obs.objectKey) ?? {
      tokens: new TokenBucket({ capacity: this.#burst, amount: this.#refillPerMinute, periodMs: 60_000, now: obs.now }),
      dropped: 0,
      lastUsed: obs.now,
    };
    bucket.lastUsed = Math.max(bucket.lastUsed, obs.now);
    remember(this.#buckets, obs.objectKey, bucket, this.#maxEntries);
    if (!bucket.tokens.tryTake(obs.now)) {
      bucket.dropped += 1;
      return { action: 'drop', droppedForObject: bucket.dropped };
    }

    const seen = touch(this.#seen, obs.eventKey);
    if (seen !== undefined && obs.now - seen.lastSeen <= this.#windowMs) {
      seen.count += 1;
      seen.lastSeen = Math.max(seen.lastSeen, obs.now);
      return { action: 'patch', target: seen.target, count: seen.count, firstSeen: seen.firstSeen };
    }
    const fresh: Seen = { target: obs.target(), firstSeen: obs.now, count: 1, lastSeen: obs.now };
    remember(this.#seen, obs.eventKey, fresh, this.#maxEntries);
    return { action: 'create', target: fresh.target, count: 1, firstSeen: obs.now };
  }

  /**
   * Forgets what no longer changes a decision: events last seen beyond the window (the next one is new anyway) and
   * buckets full again (a new one is the same). Both maps are in order of last use, so only their fronts are read.
   * Without this, a churning namespace (every CR a new name) keeps maxEntries of each.
   */
  #expire(now: number): void {
    for (const [key, seen] of this.#seen) {
      if (now - seen.lastSeen <= this.#windowMs) break;
      this.#seen.delete(key);
    }
    for (const [key, bucket] of this.#buckets) {
      if (now - bucket.lastUsed < this.#refillMs) break;
      this.#buckets.delete(key);
    }
  }

  /** How many objects and distinct events are remembered (each ≤ maxEntries). */
  size(): { readonly objects: number; readonly events: number } {
    return { objects: this.#buckets.size, events: this.#seen.size };
  }
}
