// The periodic requeue of a reconciled CR: its reconcile period, spread ±10 % when a jitter source is given, so that
// CRs created together drift apart instead of reconciling in lockstep forever. Used by settle.ts only.
// Pure; only the periodic resync is spread: the uninstall-wait poll and the retry delays of failures stay exact.

import type { Outcome } from '../../controller/contract.js';
import { jittered } from '../../core/backoff.js';

/** The spread of a periodic requeue: ±10 %. */
export const PERIOD_JITTER = 0.1;

/** The Outcome that asks for the next periodic reconcile in about `periodMs` (none for 0); at least 1 ms. */
export function periodicRequeue(periodMs: number, jitter: (() => number) | undefined): Outcome {
  if (!(periodMs > 0)) return {};
  return { requeueAfterMs: jitter ? Math.max(1, jittered(periodMs, PERIOD_JITTER, jitter)) : periodMs };
}
