// The periodic requeue of a reconciled CR: its reconcile period, spread ±10 % when a jitter source is given, so that
// CRs created together drift apart instead of reconciling in lockstep forever. Used by settle.ts only.
// Pure; only the periodic resync is spread: the uninstall-wait poll and the retry delays of failures stay exact.
// Also the sooner requeue while a workload is not ready (its pods' state reaches no watch), backing off with time.

import type { Outcome } from '../../controller/contract.js';
import { jittered } from '../../core/backoff.js';

/** The spread of a periodic requeue: ±10 %. */
export const PERIOD_JITTER = 0.1;

/** The Outcome that asks for the next periodic reconcile in about `periodMs` (none for 0); at least 1 ms. */
export function periodicRequeue(periodMs: number, jitter: (() => number) | undefined): Outcome {
  if (!(periodMs > 0)) return {};
  return { requeueAfterMs: jitter ? Math.max(1, jittered(periodMs, PERIOD_JITTER, jitter)) : periodMs };
}

/** The recheck of a not-ready workload's pods: at least this long after a reconcile, and at most the longer one. */
export const RECHECK_MIN_MS = 5_000;
export const RECHECK_MAX_MS = 60_000;

/**
 * `requeue`, or a sooner one while a workload has not been ready for `notReadyForMs`: half that time, kept between
 * RECHECK_MIN_MS and RECHECK_MAX_MS (5 s for the first 10 s, then 10 s, 20 s, ... up to 60 s), so a pod stuck for
 * hours costs one reconcile a minute, and one stuck for seconds shows within 5 s.
 */
export function recheckRequeue(requeue: Outcome, notReadyForMs: number): Outcome {
  const delay = Math.min(RECHECK_MAX_MS, Math.max(RECHECK_MIN_MS, Math.round(notReadyForMs / 2)));
  const current = requeue.requeueAfterMs;
  return current !== undefined && current > 0 && current <= delay ? requeue : { requeueAfterMs: delay };
}
