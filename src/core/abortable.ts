// Waiting that an AbortSignal can end: a promise raced against the signal, and a wait for a callback that some
// other code calls (a waiter in a set). Used by the informer, the work queue, the event recorder and the chart
// digest memo. Pure promise plumbing; never starts timers and always removes the abort listener it added.

/** `p`, or a rejection with `signal.reason` as soon as the signal aborts (already aborted: at once). */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Waits until the callback handed to `register` is called, or rejects with `signal.reason` when the signal aborts
 * first; `register` returns what undoes the registration, which runs on abort (so the waiter is not left behind).
 */
export function waitFor<T = void>(signal: AbortSignal, register: (done: (value: T) => void) => () => void): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      unregister();
      reject(signal.reason);
    };
    const unregister = register((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
