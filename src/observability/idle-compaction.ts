// Gives a burst's garbage back once the operator goes quiet: a helm middleware that counts the calls, and when none has
// run for `quietMs` after at least `minCalls` since the last time, runs one full garbage collection. V8 alone keeps the
// heap it grew during a burst of installs for minutes (1000 CRs: 141 MiB RSS settled, 112 MiB after one full GC).
// Between bursts (periodic reconciles), every `checkMs` it collects again if V8's heap grew by a quarter since.
// Built by the CLI (src/cmd/run.ts), which owns how `gc` is obtained; never delays or fails a helm call.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { HelmMiddleware } from '../helm/middleware.js';

export interface IdleCompactionOptions {
  /** One full, synchronous garbage collection. */
  readonly gc: () => void;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long no helm call may run before the collection. */
  readonly quietMs: number;
  /** Helm calls since the last collection that make one worth it. @default 10 */
  readonly minCalls?: number | undefined;
  /** Stops the timer for good. */
  readonly signal: AbortSignal;
  /** The process's resident set in bytes, for the log line. @default none logged */
  readonly rss?: (() => number) | undefined;
  /** V8's heap total in bytes; without it, no check between bursts. */
  readonly heapTotal?: (() => number) | undefined;
  /** How often the heap is looked at between bursts. @default 30 s */
  readonly checkMs?: number | undefined;
}

/** Between bursts, a heap this much larger than after the last collection (and by GROWTH_MIN_BYTES) is collected. */
const GROWTH = 1.25;
const GROWTH_MIN_BYTES = 8 * 1048576;

export function idleCompaction(o: IdleCompactionOptions): HelmMiddleware {
  const minCalls = o.minCalls ?? 10;
  let running = 0;
  let since = 0;
  let cancel: (() => void) | undefined;
  let cancelCheck: (() => void) | undefined;
  /** V8's heap total after the last collection (or at the first check). */
  let baseline: number | undefined;
  o.signal.addEventListener(
    'abort',
    () => {
      cancel?.();
      cancelCheck?.();
    },
    { once: true },
  );

  const mib = (b: number | undefined) => (b === undefined ? undefined : Math.round(b / 1048576));
  const collect = (fields: object, message: string, info: boolean) => {
    const before = o.rss?.();
    const t0 = o.clock.now();
    o.gc();
    baseline = o.heapTotal?.();
    const all = { ...fields, ms: o.clock.now() - t0, rssMiBBefore: mib(before), rssMiBAfter: mib(o.rss?.()) };
    if (info) o.logger.info(all, message);
    else o.logger.debug(all, message);
  };
  const compact = () => {
    cancel = undefined;
    if (running > 0 || since < minCalls || o.signal.aborted) return;
    const calls = since;
    since = 0;
    collect({ helmCalls: calls }, 'Gave back the memory of a burst of helm calls', true);
  };
  const check = () => {
    cancelCheck = undefined;
    if (o.signal.aborted || o.heapTotal === undefined) return;
    const now = o.heapTotal();
    if (baseline === undefined) baseline = now;
    else if (running === 0 && now >= baseline * GROWTH && now - baseline >= GROWTH_MIN_BYTES)
      collect({ heapMiB: mib(now), sinceMiB: mib(baseline) }, 'Gave back the memory the heap grew by', false);
    cancelCheck = o.signal.aborted ? undefined : o.clock.setTimer(o.checkMs ?? 30_000, check);
  };
  check();
  const arm = () => {
    cancel?.();
    cancel = o.signal.aborted ? undefined : o.clock.setTimer(o.quietMs, compact);
  };

  return {
    name: 'idle-compaction',
    async around(_command, params, next) {
      running++;
      since++;
      cancel?.();
      cancel = undefined;
      try {
        return await next(params);
      } finally {
        running--;
        if (running === 0) arm();
      }
    },
  };
}
