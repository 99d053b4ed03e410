// What a HelmReconciler is built with, in three small parts: its ports (CRs, release records, helm, events and the
// optional adapters, each an interface of types.ts), the deletion settings, and the watch's own settings. Types
// only, part of the reconciler's face; the manager (manager/reconciler.ts) fills them in and the reconciler and its
// deletion flow read them. Never holds state.
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { HelmClient } from '../helm/types.js';
import type { ReleaseReader } from '../records/types.js';
import type { BackoffPolicy } from './classify.js';
import type {
  AdoptionChecks,
  ChartRollout,
  Cleanup,
  CrAccess,
  CustomResource,
  DeleteOrphans,
  DependentsPort,
  EventSink,
  OutsideObjects,
  ReferenceReader,
  StatusManifestMode,
  UninstallsPort,
} from './types.js';

/** The ports a reconcile reads and writes through; the optional ones default to none. */
export interface ReconcilerPorts {
  readonly crs: CrAccess;
  readonly releases: ReleaseReader;
  readonly helm: HelmClient;
  readonly events: EventSink;
  /** Dependent watches and drift repair for deployed releases. @default none */
  readonly dependents?: DependentsPort | undefined;
  /** Reads the ConfigMaps and Secrets of the values-from annotation. @default none: such CRs are Irreconcilable */
  readonly references?: ReferenceReader | undefined;
  /** uninstall-wait support. @default none: the annotation is then reported as unsupported */
  readonly cleanup?: Cleanup | undefined;
  /** Deletes what a release left outside its namespace when its record is gone (ownership/orphans.ts). @default none */
  readonly orphans?: DeleteOrphans | undefined;
  /** What releases put outside their namespaces, shared with the post-renderer's hook. @default a private one */
  readonly outside?: OutsideObjects | undefined;
  /**
   * Where the checks of releases to adopt (no fingerprint label: operator-sdk's) run: a queue whose background slots
   * wake each CR when its check is done (the manager's). @default each check runs inline, in its reconcile
   */
  readonly adoption?: AdoptionChecks | undefined;
  /** The watch's chart rollout: chart-driven upgrades go canary first, then a few at a time. @default none */
  readonly chartRollout?: ChartRollout | undefined;
  /**
   * Sets labels on the record (Secret) of one revision of a release, as `helm --labels` would have: an adopted
   * release gets its fingerprint label without a helm upgrade. @default none: nothing is labelled
   */
  readonly labelRecord?:
    | ((
        namespace: string,
        release: string,
        revision: number,
        labels: Readonly<Record<string, string>>,
        signal: AbortSignal,
      ) => Promise<void>)
    | undefined;
  /**
   * The manifest with the post-renderer's ownership marks, as it would have written them for the CR: given to drift
   * repair for a deployed manifest stored without them (a release adopted from operator-sdk). @default none
   */
  readonly ownedManifest?: ((cr: CustomResource, manifest: string, signal: AbortSignal) => Promise<string>) | undefined;
}

/** How the CRs of the watch are deleted. */
export interface DeletionSettings {
  /**
   * Where deletion passes uninstall their releases (uninstall/queue.ts: coalesced with the other CRs being deleted,
   * in-process or in one helm process). @default a queue of its own: helm for each release, alone
   */
  readonly uninstalls?: UninstallsPort | undefined;
}

export interface HelmReconcilerOptions extends ReconcilerPorts, DeletionSettings {
  readonly watch: Watch;
  /** The `name` in the chart's Chart.yaml: a release of another chart under the CR's name is left alone. */
  readonly chartName: string;
  /** The --reconcile-period flag, used when neither the CR annotation nor the watch sets one. */
  readonly defaultReconcilePeriodMs: number;
  /**
   * Source in [0, 1) that spreads each periodic requeue over the period ±10 % (reconciler/inputs/period.ts), so that
   * CRs created together do not stay in lockstep. @default none: the period is exact
   */
  readonly periodJitter?: (() => number) | undefined;
  /** Releases ("ns/name") with a helm process of this operator running; shared by all reconcilers. */
  readonly inFlight: Set<string>;
  /** Mask override values in OverrideValuesInUse events. @default false */
  readonly suppressOverrideValues?: boolean | undefined;
  /** --status-manifest: what status.deployedRelease.manifest holds (always capped). @default 'redacted' */
  readonly statusManifest?: StatusManifestMode | undefined;
  /** @default 10 s doubling to 15 min */
  readonly releaseBackoff?: BackoffPolicy | undefined;
  /**
   * The post-renderer's per-call arguments for a CR (ownership of what the chart renders); also part of the
   * release fingerprint, so releases rendered without it are upgraded once. @default no post-renderer
   */
  readonly postRenderArgs?: ((cr: CustomResource) => readonly string[]) | undefined;
  /**
   * The CR's shard (its shard label's value) when sharding is on: its release's records carry it as a label (as
   * postRenderArgs' objects do), and it is part of the release fingerprint, so a CR moved to another shard is
   * upgraded once to relabel them. @default none: nothing carries a shard
   */
  readonly shardOf?: ((cr: CustomResource) => string | undefined) | undefined;
  /**
   * Where the copies of a chart go that leave out the declared dependencies helm's library does not load
   * (inputs/loaded-chart.ts). @default `<tmpdir>/helm-operator-charts`
   */
  readonly chartStageDir?: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}
