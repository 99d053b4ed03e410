// A keyed work queue with client-go workqueue semantics: de-duplicated FIFO adds, a key is never handed to two
// workers at once, delayed adds through the injected Clock, and per-key rate-limited requeues.
// Fed by controllers (event handlers) and drained by runWorkers; it never runs handlers nor calls setTimeout itself.

import { waitFor } from '../core/abortable.js';
import type { Clock } from '../core/clock.js';
import { realClock } from '../core/clock.js';
import type { RateLimiter } from './backoff.js';
import { ExponentialBackoff } from './backoff.js';

/** Longest delay a timer can take (Node fires longer setTimeout delays after 1 ms); addAfter clamps to it. */
export const MAX_DELAY_MS = 2 ** 31 - 1;

/** Metric callbacks. They run synchronously inside queue operations and must not throw. */
export interface WorkQueueHooks<K extends string = string> {
  /** The key became pending: not called for a de-duplicated add nor for an add ignored after shutDown(). */
  onAdd?(key: K): void;
  /** The key was handed to a worker, `waitedMs` after it became pending. */
  onGet?(key: K, waitedMs: number): void;
  /** A worker finished the key, `workMs` after it was handed out. */
  onDone?(key: K, workMs: number): void;
  /** addRateLimited() was called for the key (client-go's workqueue_retries_total). */
  onRetry?(key: K): void;
}

export interface WorkQueueOptions<K extends string = string> {
  /** Timers for addAfter / addRateLimited. @default realClock */
  readonly clock?: Clock;
  /** Delays for addRateLimited. @default new ExponentialBackoff() (5 ms, doubling, capped at 1000 s) */
  readonly rateLimiter?: RateLimiter<K>;
  /** Metric callbacks; durations are measured with performance.now(). @default {} */
  readonly hooks?: WorkQueueHooks<K>;
}

interface Waiter<K> {
  resolve(key: K | undefined): void;
}

interface Delayed {
  readonly readyAt: number;
  readonly cancel: () => void;
}

export class WorkQueue<K extends string = string> {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter<K>;
  readonly #hooks: WorkQueueHooks<K>;
  /** FIFO of pending keys not being processed; entries before #head were already taken. */
  #queue: K[] = [];
  #head = 0;
  /** Keys that need processing (queued, or re-added while processing) → when they became pending. */
  readonly #dirty = new Map<K, number>();
  /** Keys handed to a worker and not done yet → when they were handed out. */
  readonly #processing = new Map<K, number>();
  /** The earliest pending addAfter per key. */
  readonly #delayed = new Map<K, Delayed>();
  /** Blocked get() calls, oldest first; only non-empty while #queue is empty. */
  readonly #waiters = new Set<Waiter<K>>();
  readonly #drainWaiters = new Set<() => void>();
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#clock = options.clock ?? realClock;
    this.#limiter = options.rateLimiter ?? new ExponentialBackoff<K>();
    this.#hooks = options.hooks ?? {};
  }

  /** Number of keys waiting to be handed out (not counting keys being processed or delayed). */
  len(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Makes the key available now. A key already pending is not added twice; a key being processed is marked and
   * handed out again only after done(). Ignored after shutDown().
   */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.set(key, performance.now());
    this.#hooks.onAdd?.(key);
    if (!this.#processing.has(key)) this.#push(key);
  }

  /**
   * Resolves with the next key (FIFO), which the caller then owns until it calls done(key). Resolves undefined
   * when `signal` aborts, or after shutDown() once no key is waiting.
   */
  get(signal: AbortSignal): Promise<K | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const key = this.#shift();
    if (key !== undefined) {
      this.#take(key);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const next = waitFor<K | undefined>(signal, (done) => {
      const waiter: Waiter<K> = { resolve: done };
      this.#waiters.add(waiter);
      return () => this.#waiters.delete(waiter);
    });
    return next.catch(() => undefined); // aborted: no key
  }

  /** Ends the key's processing; if it was added again meanwhile, it is queued again. No-op if not processing. */
  done(key: K): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#hooks.onDone?.(key, performance.now() - startedAt);
    if (this.#dirty.has(key)) this.#push(key);
    this.#resolveDrainedIfDone();
  }

  /**
   * Adds the key after `ms` (clamped to MAX_DELAY_MS; ≤ 0 or NaN adds now). Of several pending delays for one key
   * the earliest wins. add() does not cancel a pending delay: when it fires, its add is de-duplicated or repeated.
   */
  addAfter(key: K, ms: number): void {
    if (this.#shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const delay = Math.min(ms, MAX_DELAY_MS);
    const readyAt = this.#clock.now() + delay;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.readyAt <= readyAt) return;
      pending.cancel();
    }
    const entry: Delayed = {
      readyAt,
      cancel: this.#clock.setTimer(delay, () => {
        if (this.#delayed.get(key) === entry) this.#delayed.delete(key);
        this.add(key);
      }),
    };
    this.#delayed.set(key, entry);
  }

  /** Adds the key after its rate limiter's next delay (one more failure counted). */
  addRateLimited(key: K): void {
    this.#hooks.onRetry?.(key);
    this.addAfter(key, this.#limiter.when(key));
  }

  /** Resets the key's failure count; does not remove it from the queue. */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  /** How many rate-limited requeues are counted for the key since the last forget(). */
  numRequeues(key: K): number {
    return this.#limiter.failures(key);
  }

  /**
   * Stops accepting adds and cancels delayed adds. Keys already waiting (and keys re-added before shutdown that are
   * being processed) are still handed out; once none waits, get() resolves undefined. Idempotent.
   */
  shutDown(): void {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      for (const pending of this.#delayed.values()) pending.cancel();
      this.#delayed.clear();
      // Waiters exist only while nothing is queued, so they are all done.
      for (const waiter of this.#waiters) waiter.resolve(undefined);
      this.#waiters.clear();
    }
    this.#resolveDrainedIfDone();
  }

  /**
   * shutDown(), then resolves once no key is being processed or waiting (so workers must keep running), or rejects
   * with `signal.reason` when the signal aborts first.
   */
  shutDownWithDrain(signal: AbortSignal): Promise<void> {
    this.shutDown();
    if (this.#drained()) return Promise.resolve();
    return waitFor(signal, (done) => {
      const onDrained = () => done();
      this.#drainWaiters.add(onDrained);
      return () => this.#drainWaiters.delete(onDrained);
    });
  }

  #push(key: K): void {
    const waiter = this.#waiters.values().next().value;
    if (waiter === undefined) {
      this.#queue.push(key);
      return;
    }
    this.#waiters.delete(waiter);
    this.#take(key);
    waiter.resolve(key);
  }

  #shift(): K | undefined {
    const key = this.#queue[this.#head];
    if (key === undefined) return undefined;
    this.#head++;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }

  #take(key: K): void {
    const now = performance.now();
    const addedAt = this.#dirty.get(key) ?? now;
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    this.#hooks.onGet?.(key, now - addedAt);
  }

  #drained(): boolean {
    return this.#processing.size === 0 && this.len() === 0;
  }

  #resolveDrainedIfDone(): void {
    if (!this.#shuttingDown || !this.#drained()) return;
    const waiters = [...this.#drainWaiters];
    this.#drainWaiters.clear();
    for (const resolve of waiters) resolve();
  }
}
