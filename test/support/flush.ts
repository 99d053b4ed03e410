// `flush()`: lets every pending promise continuation and I/O callback run once (fake clocks and fake clients
// resolve through microtasks). Imported by unit tests that drive timers by hand; the only definition of it.
// Test-only; never waits on a real timer.

/** Resolves after the current macrotask's microtasks and one setImmediate turn. */
export const flush = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
