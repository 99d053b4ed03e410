// An inactivity watchdog: calls onSilent once when touch() has not been called for `ms`. Used by
// cache/informer.ts to abort stalled watches (client-node #364/#596: connections that stop delivering silently).
// Uses only the injected Clock, with one timer per period (not one per touch), and never fires after cancel().

import type { Clock } from '../core/clock.js';

export interface Watchdog {
  /** Records activity now. */
  touch(): void;
  /** Stops the watchdog; onSilent will not be called afterwards. */
  cancel(): void;
}

export function startWatchdog(clock: Clock, ms: number, onSilent: (idleMs: number) => void): Watchdog {
  let last = clock.now();
  let cancelled = false;
  let cancelTimer: () => void = () => {};
  const check = () => {
    const idle = clock.now() - last;
    // Activity since the timer was set: sleep again for what remains of the period.
    if (idle < ms) cancelTimer = clock.setTimer(ms - idle, check);
    else if (!cancelled) {
      cancelled = true;
      onSilent(idle);
    }
  };
  cancelTimer = clock.setTimer(ms, check);
  return {
    touch: () => {
      last = clock.now();
    },
    cancel: () => {
      cancelled = true;
      cancelTimer();
    },
  };
}
