// The reconciler's view of the world: the custom resource shape it reads, its status, and the narrow ports it
// needs (CR access, release history, helm). Types only; cr-access.ts adapts the kube client to the CR port.
import type { Logger } from '../core/logger.js';
import type { Release } from '../helm/types.js';
import type { Condition } from '../status/conditions.js';

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
   * The one word `kubectl get` shows (its Status column), derived from the conditions at every write (stateOf):
   * what matters most now, a failure first.
   */
  readonly state?: ReleaseStateWord;
}

/** `status.state`: the release at a glance, most urgent first (status/status.ts' stateOf says which wins). */
export type ReleaseStateWord =
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
  ): Promise<ReadyState | undefined>;
  /** The CR (`namespace/name`) is gone: drop what was kept for its manifest. */
  forget(key: string): void;
}

/**
 * The Ready condition the release's objects add up to (kstatus' rules, read from the dependent caches); undefined
 * when they are not watched (watchDependentResources: false), since nothing could keep it up to date.
 */
export interface ReadyState {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** A deletion pass's request to the uninstall queue: its own CR's release only. */
export interface UninstallsRequest {
  /** `ns/name` (`/name` for a cluster-scoped CR). */
  readonly key: string;
  readonly uid: string | undefined;
  readonly namespace: string;
  readonly release: string;
  /** The release's newest record as the pass read it; undefined when it has none. */
  readonly newest: Release | undefined;
  readonly disableHooks: boolean;
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** The pass's `helm uninstall` of the release, then of `also`, calling `onUninstalled` as helm reports each gone. */
  helm(also: readonly string[], onUninstalled: (release: string) => void): Promise<void>;
  /** The newest record of another deleting CR that may go in the same job, else undefined. */
  member(cr: CustomResource, signal: AbortSignal): Promise<Release | undefined>;
}

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
