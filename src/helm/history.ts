// Picks the revisions that matter out of one release's history (all decoded Secrets of one release name):
// the newest revision, the newest deployed one, and whether an operation is still in flight.
// Called by the reconciler after releaseFromSecret; pure: never reads the cluster, never mutates its input.
import type { Release, ReleaseStatus } from './types.js';

export interface HistorySummary {
  /** The highest revision, whatever its status. */
  readonly latest?: Release;
  /** The highest revision whose status is `deployed`. */
  readonly deployed?: Release;
  /** True when the highest revision is pending-install/-upgrade/-rollback: Helm refuses a new operation then. */
  readonly pending: boolean;
}

const PENDING: ReadonlySet<ReleaseStatus> = new Set(['pending-install', 'pending-upgrade', 'pending-rollback']);

/** Helm's `Status.IsPending()`: an install, upgrade or rollback that has started and not finished. */
export function isPending(status: ReleaseStatus): boolean {
  return PENDING.has(status);
}

/** The highest revision; the first one seen wins a tie. */
export function latest(history: readonly Release[]): Release | undefined {
  let best: Release | undefined;
  for (const release of history) {
    if (best === undefined || release.version > best.version) best = release;
  }
  return best;
}

/** The highest revision with status `deployed` (Helm keeps at most one, but a crash can leave more). */
export function lastDeployed(history: readonly Release[]): Release | undefined {
  return latest(history.filter((release) => release.info.status === 'deployed'));
}

export function summarize(history: readonly Release[]): HistorySummary {
  const newest = latest(history);
  const deployed = lastDeployed(history);
  return {
    ...(newest === undefined ? {} : { latest: newest }),
    ...(deployed === undefined ? {} : { deployed }),
    pending: newest !== undefined && isPending(newest.info.status),
  };
}
