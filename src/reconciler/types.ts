// The reconciler's view of the world: the custom resource shape it reads, its status, and every port it is built
// with (CR access, events, dependents, references, the outside objects, adoption checks, the chart rollout, cleanup).
// Types only, part of the reconciler's face; the adapters live below it (crs/access.ts, references/, ownership/...).
import type { Verdict } from '../adoption/queue.js';
import type { Admission } from '../chart-rollout/gate.js';
import type { Condition } from '../conditions/conditions.js';
import type { ReferenceKind } from '../config/values-from.js';
import type { Logger } from '../core/logger.js';
import type { OutsideRef } from '../ownership/orphans.js';
import type { QueueRequest } from '../uninstall/queue.js';

export interface CustomResource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly generation?: number;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
    readonly deletionTimestamp?: string;
  };
  readonly spec?: unknown;
  readonly status?: unknown;
}

/** The release the CR's status points at: operator-sdk's {name, manifest} plus the revision (for printer columns). */
export interface DeployedRelease {
  readonly name: string;
  /** Absent with `--status-manifest=none`; a marker above the cap (see status-manifest.ts). */
  readonly manifest?: string;
  readonly revision?: number;
}

/** --status-manifest: what `status.deployedRelease.manifest` holds (always capped; see status-manifest.ts). */
export type StatusManifestMode = 'full' | 'redacted' | 'none';

/** operator-sdk's HelmAppStatus, plus observedGeneration, a Flux-style failure counter and handled requests. */
export interface HelmAppStatus {
  readonly conditions: readonly Condition[];
  readonly deployedRelease?: DeployedRelease;
  /** metadata.generation of the spec this status describes. */
  readonly observedGeneration?: number;
  /** Consecutive failed attempts for the current spec; absent after a success. */
  readonly failures?: number;
  /** The last `reconcile-requested-at` annotation value a reconcile handled (Flux's lastHandledReconcileAt). */
  readonly lastHandledReconcileAt?: string;
  /** The last `force-upgrade-at` annotation value a forced upgrade (or an install) handled. */
  readonly lastHandledForceAt?: string;
  /**
   * The one word `kubectl get` shows (its Status column), derived from the conditions at every write (statusWordOf):
   * what matters most now, a failure first.
   */
  readonly state?: StatusWord;
}

/** `status.state`: the release at a glance, most urgent first (status/status.ts' statusWordOf says which wins). */
export type StatusWord =
  | 'Paused'
  | 'Irreconcilable'
  | 'InstallFailed'
  | 'UpgradeFailed'
  | 'UninstallFailed'
  | 'RolloutHeld'
  | 'HelmRunning'
  | 'Deployed'
  | 'Uninstalling'
  | 'Uninstalled'
  | 'Pending';

/** What the helm step of a reconcile does to the release. */
export type ReleaseAction = 'install' | 'upgrade' | 'none';

export interface Signal {
  readonly signal: AbortSignal;
}

/** Reads and writes the watched custom resources. */
export interface CrAccess {
  /**
   * The object to reconcile, or undefined when it does not exist: the informer's copy when it has one (it may lag
   * the API server by a watch event; a write based on it fails with a conflict), else read from the API server.
   * Never mutate what it returns: it may be the cache's own object.
   */
  get(namespace: string, name: string, opts: Signal): Promise<CustomResource | undefined>;
  /** The API server's current copy, read after a write conflicted. @default none: the conflict is thrown */
  latest?(namespace: string, name: string, opts: Signal): Promise<CustomResource | undefined>;
  /** Sets metadata.finalizers with optimistic concurrency (the object's resourceVersion); returns the new object. */
  setFinalizers(cr: CustomResource, finalizers: readonly string[], opts: Signal): Promise<CustomResource>;
  /** Replaces the status subresource; returns the new object. */
  writeStatus(cr: CustomResource, status: HelmAppStatus, opts: Signal): Promise<CustomResource>;
}

/** Records Kubernetes Events on the CR (fire-and-forget; never pass values in messages). */
export interface EventSink {
  event(cr: CustomResource, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** Dependent watches and drift repair (the CLI wires the real ones). */
export interface DependentsPort {
  /**
   * Called with the deployed manifest after every successful reconcile: watch its kinds; when `changed` is false
   * (no install or upgrade ran), re-assert drifted or deleted objects; then say how ready the objects are. Must
   * not throw for a drift it cannot fix.
   */
  afterDeploy(
    cr: CustomResource,
    manifest: string,
    changed: boolean,
    opts: Signal & { log: Logger },
  ): Promise<Readiness | undefined>;
  /** The CR (`namespace/name`) is gone: drop what was kept for its manifest. */
  forget(key: string): void;
}

/**
 * The Ready condition the release's objects add up to (kstatus' rules, read from the dependent caches); undefined
 * when they are not watched (watchDependentResources: false), since nothing could keep it up to date.
 */
export interface Readiness {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  /**
   * A workload is not ready and its pods were looked at: reconcile again soon (settle.ts backs off), since a pod's
   * waiting state changes no watched object. @default false
   */
  readonly recheck?: boolean;
}

/** A CR's release options from its annotations (each parsed once per reconcile; inputs/annotations.ts reads them). */
export interface ReleaseOptions {
  readonly upgradeForce: boolean;
  readonly rollbackForce: boolean;
  readonly uninstallWait: boolean;
  readonly installDisableHooks: boolean;
  readonly upgradeDisableHooks: boolean;
  readonly uninstallDisableHooks: boolean;
  /** helm's `--timeout` for every helm run of this CR (annotation, else the watch's, else 5m). */
  readonly helmTimeoutMs: number;
  readonly warnings: readonly string[];
}

/**
 * One reconcile's status draft (status/updater.ts): what the phases set is written once, at `apply()`, the status
 * first, then the finalizer removal, each only when something changed.
 */
export interface StatusDraft {
  /** The CR as last read or written. */
  readonly cr: CustomResource;
  /** What the CR's status shows now: the operator's part of it as read, or as last applied. */
  readonly shown: HelmAppStatus;
  /** Adds our finalizer when it is missing, at once (before the first helm action). */
  addFinalizer(signal: AbortSignal): Promise<void>;
  /** The status to write at the next apply() (replaces any status set before). */
  setStatus(status: HelmAppStatus): void;
  /** Writes `change(shown)` at once (progress while helm runs), unless it equals what is shown. */
  writeNow(change: (shown: HelmAppStatus) => HelmAppStatus, signal: AbortSignal): Promise<void>;
  /** Lays `change` over every status apply() writes from now on, whichever phase set it. */
  amend(change: (status: HelmAppStatus) => HelmAppStatus): void;
  /** Runs `fn` once the next apply() has succeeded. */
  afterApply(fn: () => void): void;
  /** Removes our finalizers at the next apply(), after the status. */
  removeFinalizers(): void;
  /** Writes what is pending (status, then the finalizer removal), then runs the afterApply() callbacks. */
  apply(signal: AbortSignal): Promise<void>;
}

/** A referenced ConfigMap or Secret; only its `data` is read. */
export interface ReferencedObject {
  readonly data?: unknown;
}

/** Reads the objects values-from references name (references/reference-reader.ts). */
export interface ReferenceReader {
  /** The object, or undefined when there is none; other failures are thrown (a kube/errors.ts error). */
  get(kind: ReferenceKind, namespace: string, name: string, opts: Signal): Promise<ReferencedObject | undefined>;
}

/** What each CR's release put outside its namespace (ownership/orphans.ts' OutsideObjectMemo). */
export interface OutsideObjects {
  /** Records the deployed revision's outside objects. */
  remember(key: string, crNamespace: string, revision: number, manifest: string): void;
  /** What is known for the CR ("ns/name"); undefined: nothing. */
  get(key: string): readonly OutsideRef[] | undefined;
  forget(key: string): void;
}

/** Removes the objects of an uninstalled release that still exist; returns those not gone yet (uninstall-wait). */
export type Cleanup = (manifest: string, namespace: string, signal: AbortSignal) => Promise<{ remaining: unknown[] }>;

/** Deletes what a release left outside its namespace when its record is gone; returns those deleted. */
export type DeleteOrphans = (
  refs: readonly OutsideRef[],
  release: string,
  namespace: string,
  signal: AbortSignal,
) => Promise<readonly OutsideRef[]>;

/**
 * The adoption checks of one watch (adoption/queue.ts), keyed by CR and `<revision>/<fingerprint>`: what a check
 * found, whether the release was adopted, and the checks waiting or running in the background.
 */
export interface AdoptionChecks {
  verdict(key: string, ident: string): Verdict | undefined;
  adopted(key: string, ident: string): boolean;
  record(key: string, ident: string, verdict: Verdict): void;
  markAdopted(key: string, ident: string): void;
  pending(key: string, ident: string): boolean;
  schedule(key: string, ident: string, check: (signal: AbortSignal) => Promise<Verdict>): void;
  forget(key: string): void;
}

/** The chart rollout of one watch (chart-rollout/gate.ts): chart-driven upgrades go canary first, then a few at once. */
export interface ChartRollout {
  /** Asks to run the chart-driven upgrade of CR `key` to the chart `digest`. */
  admit(key: string, digest: string): Admission;
  /** The CR's upgrade was not chart-driven, or it needs none: it is not held. */
  pass(key: string): void;
  /** The CR is gone: drop it from the counts. */
  forget(key: string): void;
}

/** A deletion pass's request to the uninstall queue (uninstall/queue.ts): its own CR's release only. */
export type UninstallsRequest = QueueRequest<CustomResource>;

/**
 * The uninstall queue below the reconciler (uninstall/queue.ts): uninstalls the asking CR's release, coalesced with
 * the other deleting CRs it can see, and answers each of those its own outcome when its own pass asks. Never writes a
 * CR: each pass writes its own status, event and finalizer.
 */
export interface UninstallsPort {
  /** 'uninstalled', or 'not-found' when the release had no record left; throws the uninstall's failure. */
  uninstall(request: UninstallsRequest): Promise<'uninstalled' | 'not-found'>;
  /** The CR's own pass removed its finalizer. */
  finish(cr: CustomResource): void;
  /** True once the CR's own pass removed its finalizer: a copy that still shows it lags. */
  finished(cr: CustomResource): boolean;
}
