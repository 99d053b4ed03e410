// The set of releases ("ns/name") with a helm process of this operator running, shared by all reconcilers: a
// check that refuses to start a second one, and a guard that marks a release while its helm step runs.
// Called by release/step.ts and deletion/deletion.ts; stuck-release detection reads the same set. Never calls helm.
import { RetryLaterError } from '../../core/errors.js';

/** How long a reconcile waits when another reconciler of this operator is running helm on the release. */
export const IN_FLIGHT_RETRY_MS = 5_000;

/** Throws RetryLaterError when another reconciler (a second kind with the same name and chart) runs helm on `key`. */
export function assertNotInFlight(inFlight: ReadonlySet<string>, key: string): void {
  if (inFlight.has(key)) {
    throw new RetryLaterError(
      `${key}: another helm operation of this operator is running on the release`,
      IN_FLIGHT_RETRY_MS,
    );
  }
}

/** Marks `key` as worked on by this operator while `fn` runs. */
export async function whileInFlight<T>(inFlight: Set<string>, key: string, fn: () => Promise<T>): Promise<T> {
  inFlight.add(key);
  try {
    return await fn();
  } finally {
    inFlight.delete(key);
  }
}
