// The one polling wait of the test kit: until() calls a probe every few ms until its value ends the wait, or throws
// once a deadline passes. Used by chaos/ (its scenarios and plane faults) and bench/ (through bench/kit.ts' waits,
// which keep the bench's own rules: any value but undefined, a probe's error at once, the operator's exit). Test-only.
import { setTimeout as sleep } from 'node:timers/promises';

export interface UntilOptions {
  readonly timeoutMs: number;
  /** @default 200 */
  readonly everyMs?: number | undefined;
  /** Aborts the wait (checked before each probe and during each pause). @default none */
  readonly signal?: AbortSignal | undefined;
  /** Whether a probe's value ends the wait. @default a truthy value */
  readonly done?: ((value: unknown) => boolean) | undefined;
  /** A probe's error: 'retry' (the last one is named on timeout) or 'throw' (at once). @default 'retry' */
  readonly probeErrors?: 'retry' | 'throw' | undefined;
  /** Checked before each probe: an error ends the wait at once (e.g. the process waited on has exited). */
  readonly stopWhen?: ((what: string) => Error | undefined) | undefined;
  /** The error thrown on timeout. @default `<what>: not within <timeoutMs> ms (last error: …)` */
  readonly timeoutError?: ((what: string, lastError: unknown) => Error) | undefined;
}

/** Calls `probe` every `everyMs` until its value ends the wait (returned); throws after `timeoutMs`, naming `what`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  o: UntilOptions,
): Promise<T> {
  const deadline = performance.now() + o.timeoutMs;
  const done = o.done ?? Boolean;
  let last: unknown;
  for (;;) {
    o.signal?.throwIfAborted();
    const stop = o.stopWhen?.(what);
    if (stop) throw stop;
    try {
      const v = await probe();
      if (done(v)) return v as T;
    } catch (err) {
      if (o.probeErrors === 'throw') throw err;
      last = err;
    }
    if (performance.now() > deadline) {
      throw (
        o.timeoutError?.(what, last) ??
        new Error(`${what}: not within ${o.timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`)
      );
    }
    await sleep(o.everyMs ?? 200, undefined, o.signal ? { signal: o.signal } : {});
  }
}
