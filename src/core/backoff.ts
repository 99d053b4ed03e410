// The one exponential backoff formula: attempt n waits base * 2^n ms, capped, optionally jittered ±fraction.
// Used by the workqueue rate limiter (controller/backoff.ts), the informer's relist delay (cache/informer.ts) and
// the failed-release retry delay (reconciler/classify.ts); its jitter spreads periodic requeues
// (reconciler/inputs/period.ts). Pure: it never reads the clock or schedules timers.

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
  return o.jitter === undefined ? raw : jittered(raw, o.jitter, o.random ?? Math.random);
}

/** `ms` spread uniformly over ±`fraction` (0.1 = ±10 %) by `random` in [0, 1), rounded to whole ms. */
export function jittered(ms: number, fraction: number, random: () => number): number {
  return Math.round(ms * (1 - fraction + 2 * fraction * random()));
}
