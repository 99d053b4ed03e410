// Time as a dependency: `Clock` gives now() and abortable sleeps, so queues, backoff and periods are testable with
// a fake clock. realClock is the only place in src/ that calls setTimeout for waiting.
// Never used for measuring durations in metrics (use performance.now there).

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with `signal.reason` when the signal aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};
