// The one exponential backoff formula: attempt n waits base * 2^n ms, capped, optionally jittered ±fraction.
// Used by the workqueue rate limiter (controller/backoff.ts), the informer's relist delay (cache/informer.ts) and
// the failed-release retry delay (reconciler/classify.ts). Pure: it never reads the clock or schedules timers.

export interface BackoffOptions {
  /** The delay of attempt 0, in ms. */
  readonly baseMs: number;
  /** Upper bound for any delay (before jitter), in ms. */
  readonly maxMs: number;
  /** Spread each delay uniformly over ±this fraction (0.1 = ±10 %), then round to whole ms. @default none */
  readonly jitter?: number;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** The delay before retry number `attempt` (0-based: attempt 0 waits baseMs). */
export function backoffDelay(attempt: number, o: BackoffOptions): number {
  // 2 ** attempt becomes Infinity after ~1000 attempts; Math.min caps that too.
  const raw = Math.min(o.maxMs, o.baseMs * 2 ** attempt);
  if (o.jitter === undefined) return raw;
  const r = (o.random ?? Math.random)();
  return Math.round(raw * (1 - o.jitter + 2 * o.jitter * r));
}
