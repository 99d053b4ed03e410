// A deadline as an AbortSignal that its owner clears once the work is done: AbortSignal.timeout keeps its timer and
// signals alive for the whole timeout, even after the work finished. Used by kube/rest.ts for every request's
// deadline; the timer never keeps the process alive.

export interface Deadline {
  /** Aborts with a DOMException named TimeoutError when the time is up. */
  readonly signal: AbortSignal;
  /** Stops the timer (the work finished); the signal then never aborts. */
  clear(): void;
}

export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`the ${ms} ms deadline passed`, 'TimeoutError')),
    ms,
  ).unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
