import type { Release } from '../helm/types.js';
// Helm's release records as the operator reads them: one stored revision with its record's labels, and the reader
// port that lists a release's revisions without spawning helm. Types only; reader.ts and cached-reader.ts implement
// the port, the reconciler and the manager consume it.

/** A release revision as stored by Helm, with the labels of its record (our fingerprint lives there). */
export interface StoredRelease {
  readonly release: Release;
  readonly labels: Readonly<Record<string, string>>;
}

export interface HistoryOptions {
  readonly signal: AbortSignal;
  /**
   * The CR shows no status: no operator has reconciled it, so none of its records predates the shard label, and a
   * sharded replica's cache may be trusted for it without a first LIST. @default false
   */
  readonly neverReconciled?: boolean | undefined;
}

/** Reads Helm's release records through the API, without spawning helm. */
export interface ReleaseReader {
  /** The release's newest revision and its newest deployed one (helm/history.ts' summarize reads no other). */
  history(namespace: string, release: string, opts: HistoryOptions): Promise<readonly StoredRelease[]>;
}
