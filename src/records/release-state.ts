// The release's named state, in one place as Flux's helm-controller state.go: from Helm's records (no helm process),
// a watch's chart and the inputs' fingerprint label, Absent, Unmanaged, Locked, Failed, Unadopted, OutOfSync or
// InSync. Pure; called by the reconciler (reconciler/release/state.ts, the helm step, deletion) and deploy/free-stranded.ts.
// Never runs helm, never reads or writes anything.
import type { HistorySummary } from '../helm/history.js';
import { summarize } from '../helm/history.js';
import type { StoredRelease } from './types.js';

/** Label on Helm's release record holding the fingerprint of the inputs that produced it. */
export const FINGERPRINT_LABEL = 'helm.sdk.operatorframework.io/fingerprint';

/**
 * The release as a reconcile finds it, named as Flux's helm-controller names its states:
 * - `Absent`: no record at all;
 * - `Unmanaged`: the newest record is another chart's: left untouched (installed, upgraded and uninstalled by no one here);
 * - `Locked`: the newest record is pending-* (recovered first, recover.ts);
 * - `Failed`: records, none of them deployed (a failed first install);
 * - `Unadopted`: deployed and the newest revision, but its record has no fingerprint at all: installed by
 *   operator-sdk (or by this operator before it labelled its records), so whether it is in sync is not known;
 * - `OutOfSync`: deployed, but from other inputs (fingerprint), or a failed upgrade recorded on top of it;
 * - `InSync`: deployed from these very inputs.
 */
export type ReleaseState = 'Absent' | 'Unmanaged' | 'Locked' | 'Failed' | 'Unadopted' | 'OutOfSync' | 'InSync';

export interface StateFacts {
  /** The records as read at the start of the reconcile, with their labels. */
  readonly history: readonly StoredRelease[];
  /** This watch's chart name: a release whose newest record names another is Unmanaged. */
  readonly chart: string;
  /** The fingerprint label of this reconcile's inputs (none in deletion: a labelled release is then OutOfSync). */
  readonly fingerprint?: string;
  /**
   * The summary after a Locked release was recovered (read again, recover.ts): named from it, with `history` for the
   * labels, and neither Unmanaged nor Locked any more (the chart was checked before; helm refuses a new lock itself).
   */
  readonly recovered?: HistorySummary;
}

/** The state with what it was named from: the records and their summary. */
export interface NamedState {
  readonly state: ReleaseState;
  readonly history: readonly StoredRelease[];
  readonly summary: HistorySummary;
}

/** The summary of a release's records: its newest revision, its newest deployed one, whether it is pending. */
export function summaryOf(history: readonly StoredRelease[]): HistorySummary {
  return summarize(history.map((h) => h.release));
}

/** Names the release's state (pure). */
export function releaseState(f: StateFacts): NamedState {
  const summary = f.recovered ?? summaryOf(f.history);
  return { state: nameOf(f, summary), history: f.history, summary };
}

function nameOf(f: StateFacts, s: HistorySummary): ReleaseState {
  if (!f.recovered) {
    const owner = s.latest?.chart.name;
    if (owner !== undefined && owner !== f.chart) return 'Unmanaged';
    if (s.pending) return 'Locked';
  }
  if (!s.deployed) return s.latest ? 'Failed' : 'Absent';
  if (s.latest !== s.deployed) return 'OutOfSync';
  // No record for it in the history read (a release just recovered, whose state was read again): upgraded, as before.
  const record = f.history.find((h) => h.release === s.deployed);
  if (!record) return 'OutOfSync';
  const label = record.labels[FINGERPRINT_LABEL];
  if (label === undefined) return 'Unadopted';
  return label === f.fingerprint ? 'InSync' : 'OutOfSync';
}

/** The Irreconcilable message of an Unmanaged release (the chart its newest record names). */
export function unmanagedMessage(release: string, named: NamedState, chart: string): string {
  const owner = named.summary.latest?.chart.name;
  return `release ${release} already exists and belongs to chart ${JSON.stringify(owner)}, not ${JSON.stringify(chart)}; it is left untouched`;
}
