// Why one watch ended, from what the informer saw: a 410 (gone), a stall, an error, or a normal close — and a
// close that came too fast without any event is an error (client-go's "very short watch"). Pure; called by
// cache/informer.ts after every watch. It never retries or sleeps.
import { GoneError, type KubeApiError, KubeTransportError } from '../kube/errors.js';

/** A watch that ended without events faster than this is treated as an error. */
export const MIN_HEALTHY_WATCH_MS = 1_000;

/** closed: the server ended it (timeout); stalled: the inactivity watchdog aborted it. */
export type WatchEndReason = 'closed' | 'stalled' | 'gone' | 'error';

export interface WatchSeen {
  /** An ERROR event the server sent. */
  readonly eventError: KubeApiError | undefined;
  readonly stalled: boolean;
  /** What the watch call threw. */
  readonly failure: unknown;
  readonly events: number;
  readonly durationMs: number;
}

/** The reason, and the error to report for 'error' (and 'gone' from an ERROR event). */
export function watchEnd(w: WatchSeen): { readonly reason: WatchEndReason; readonly failure: unknown } {
  if (w.eventError !== undefined) {
    return { reason: w.eventError instanceof GoneError ? 'gone' : 'error', failure: w.eventError };
  }
  if (w.stalled) return { reason: 'stalled', failure: w.failure };
  if (w.failure instanceof GoneError) return { reason: 'gone', failure: w.failure };
  if (w.failure !== undefined) return { reason: 'error', failure: w.failure };
  if (w.events === 0 && w.durationMs < MIN_HEALTHY_WATCH_MS) {
    const failure = new KubeTransportError(`watch ended after ${w.durationMs} ms without any event`);
    return { reason: 'error', failure };
  }
  return { reason: 'closed', failure: undefined };
}
