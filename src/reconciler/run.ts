// The per-reconcile context every phase reads instead of a parameter object of its own: the key, the CR, its log and
// signal, its annotations parsed once, and (after the finalizer) the status draft. Types only; start/read.ts builds
// both stages and the phases of reconciler.ts consume them. Never holds anything that outlives one reconcile.
import type { Logger } from '../core/logger.js';
import type { CustomResource, HelmAppStatus, ReleaseOptions, StatusDraft } from './types.js';

/** The CR's annotations as this reconcile reads them (each parsed once; an invalid one already warned). */
export interface CrAnnotations {
  /** The reconcile period: the annotation's, the watch's or the flag's (0: no periodic requeue). */
  readonly periodMs: number;
  readonly options: ReleaseOptions;
  readonly paused: boolean;
}

/** Annotation values the status has not recorded as handled (an absent or empty annotation requests nothing). */
export interface PendingRequests {
  readonly reconcileAt?: string;
  readonly forceAt?: string;
}

/** What a reconcile knows before it writes anything: enough for the deletion phase. */
export interface RunStart {
  /** "namespace/name" of the CR, which is also the release's namespace and name. */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** The CR as read (the informer's copy, or the API server's when a manual action awaits). */
  readonly cr: CustomResource;
  readonly annotations: CrAnnotations;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/** A run with its status draft open: a reconcile past its finalizer, or a deletion pass. */
export interface DraftRun extends RunStart {
  /** The CR as the updater holds it. */
  readonly cr: CustomResource;
  /** The status draft: what the phases set is written once, at the end (status first, then the finalizer). */
  readonly updater: StatusDraft;
  readonly now: () => number;
  /** An Event on the CR (never with values in the message). */
  readonly note: (type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** A reconcile past its finalizer: the status draft and what the status starts from. */
export interface ReconcileRun extends DraftRun {
  /** The reconcile-requested-at and force-upgrade-at requests this reconcile has not handled yet. */
  readonly requests: PendingRequests;
  /** The status this reconcile's outcome builds on: Paused gone, failures reset for a new spec, requests handled. */
  readonly base: HelmAppStatus;
}
