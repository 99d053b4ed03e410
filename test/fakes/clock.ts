// A manually driven Clock for unit tests: time moves only through advance(), which fires due timers in time order
// (ties in scheduling order), so sleeps resolve and delayed adds fire deterministically.
// Test-only; it never reads the real time or schedules real timers.

import type { Clock } from '../../src/core/clock.js';

export interface FakeClockOptions {
  /** The initial value of now(), in ms. @default 0 */
  readonly nowMs?: number;
}

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Set<Timer>();

  constructor(options: FakeClockOptions = {}) {
    this.#now = options.nowMs ?? 0;
  }

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.add(timer);
    return () => {
      this.#timers.delete(timer);
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = this.setTimer(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way (including timers those timers set) in time
   * order; now() equals each timer's due time while it runs. Promise continuations (e.g. after a resolved sleep)
   * run only after advance() returns.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance needs a non-negative duration, got ${ms}`);
    const target = this.#now + ms;
    for (let timer = this.#nextDue(target); timer !== undefined; timer = this.#nextDue(target)) {
      this.#timers.delete(timer);
      this.#now = timer.at;
      timer.fn();
    }
    this.#now = target;
  }

  /** How many timers (including pending sleeps) have not fired or been cancelled yet. */
  pendingTimers(): number {
    return this.#timers.size;
  }

  #nextDue(target: number): Timer | undefined {
    let next: Timer | undefined;
    for (const timer of this.#timers) {
      if (timer.at > target) continue;
      if (next === undefined || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq)) next = timer;
    }
    return next;
  }
}
