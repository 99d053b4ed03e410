// Runs parts of the operator side by side under one AbortSignal, like Go's errgroup: when one part fails the
// others are aborted (with that error as the reason), and the first failure is rethrown once every part has
// returned. Used by the manager for its controllers. Never swallows an error and never leaves a part running.

/** One long-running part: resolves when `signal` aborts (or its work is done); rejects when it fails. */
export type Part = (signal: AbortSignal) => Promise<void>;

/** Resolves when every part has resolved; rejects with the first failure after the rest have stopped. */
export async function runGroup(parts: readonly Part[], signal: AbortSignal): Promise<void> {
  const group = new AbortController();
  const stop = () => group.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  let failed = false;
  let failure: unknown;
  try {
    await Promise.all(
      parts.map((part) =>
        start(part, group.signal).catch((err: unknown) => {
          if (failed) return;
          failed = true;
          failure = err;
          group.abort(err);
        }),
      ),
    );
  } finally {
    signal.removeEventListener('abort', stop);
  }
  if (failed) throw failure;
}

/** Starts a part at once (no extra tick), turning a synchronous throw into a rejection. */
function start(part: Part, signal: AbortSignal): Promise<void> {
  try {
    return part(signal);
  } catch (err) {
    return Promise.reject(err);
  }
}
