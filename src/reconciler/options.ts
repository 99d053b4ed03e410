// What a HelmReconciler is built with: its watch, its ports (CRs, release records, helm, events) and the optional
// uninstall-wait, orphan, post-renderer and dependents hooks. Types only; the composition root fills them in and
// the reconciler and its deletion flow read them. Never holds state.
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { HelmClient } from '../helm/types.js';
import type { ReleaseReader } from '../records/types.js';
import type { BackoffPolicy } from './classify.js';
import type { OutsideObjectMemo, OutsideRef } from './deletion/orphans.js';
import type { ReferenceReader } from './inputs/values-from.js';
import type { AdoptionQueue } from './release/adoption-queue.js';
import type { ChartRolloutGate } from './rollout/chart-rollout.js';
import type {
  CrAccess,
  CustomResource,
  DependentsPort,
  EventSink,
  StatusManifestMode,
  UninstallsPort,
} from './types.js';

/** Removes the objects of an uninstalled release that still exist; returns those not gone yet. */
export type Cleanup = (manifest: string, namespace: string, signal: AbortSignal) => Promise<{ remaining: unknown[] }>;

/** Deletes what a release left outside its namespace when its record is gone (see orphans.ts); returns those deleted. */
export type DeleteOrphans = (
  refs: readonly OutsideRef[],
  release: string,
  namespace: string,
  signal: AbortSignal,
) => Promise<readonly OutsideRef[]>;

export interface HelmReconcilerOptions {
  readonly watch: Watch;
  /** The `name` in the chart's Chart.yaml: a release of another chart under the CR's name is left alone. */
  readonly chartName: string;
  /** The --reconcile-period flag, used when neither the CR annotation nor the watch sets one. */
  readonly defaultReconcilePeriodMs: number;
  /**
   * Source in [0, 1) that spreads each periodic requeue over the period ±10 % (reconciler/inputs/period.ts), so that
   * CRs created together do not stay in lockstep. @default none: the period is exact
   */
  readonly periodJitter?: () => number;
  readonly crs: CrAccess;
  readonly releases: ReleaseReader;
  readonly helm: HelmClient;
  readonly events: EventSink;
  /** uninstall-wait support. @default none: the annotation is then reported as unsupported */
  readonly cleanup?: Cleanup;
  /** Releases ("ns/name") with a helm process of this operator running; shared by all reconcilers. */
  readonly inFlight: Set<string>;
  /** Mask override values in OverrideValuesInUse events. @default false */
  readonly suppressOverrideValues?: boolean;
  /** --status-manifest: what status.deployedRelease.manifest holds (always capped). @default 'redacted' */
  readonly statusManifest?: StatusManifestMode;
  /** @default 10 s doubling to 15 min */
  readonly releaseBackoff?: BackoffPolicy;
  /**
   * The post-renderer's per-call arguments for a CR (ownership of what the chart renders); also part of the
   * release fingerprint, so releases rendered without it are upgraded once. @default no post-renderer
   */
  readonly postRenderArgs?: (cr: CustomResource) => readonly string[];
  /** What releases put outside their namespaces, shared with the post-renderer's hook. @default a private one */
  readonly outside?: OutsideObjectMemo;
  /** Deletes what a release left outside its namespace when its record is gone (see orphans.ts). @default none */
  readonly orphans?: DeleteOrphans;
  /** Dependent watches and drift repair for deployed releases. @default none */
  readonly dependents?: DependentsPort;
  /** Reads the ConfigMaps and Secrets of the values-from annotation. @default none: such CRs are Irreconcilable */
  readonly references?: ReferenceReader;
  /**
   * Where deletion passes uninstall their releases (uninstall/queue.ts: coalesced with the other CRs being deleted,
   * in-process or in one helm process). @default a queue of its own: helm for each release, alone
   */
  readonly uninstalls?: UninstallsPort | undefined;
  /**
   * Where the checks of releases to adopt (no fingerprint label: operator-sdk's) run: a queue whose background slots
   * wake each CR when its check is done (the manager's). @default each check runs inline, in its reconcile
   */
  readonly adoption?: AdoptionQueue | undefined;
  /**
   * Sets labels on the record (Secret) of one revision of a release, as `helm --labels` would have: an adopted
   * release gets its fingerprint label without a helm upgrade. @default none: nothing is labelled
   */
  readonly labelRecord?: (
    namespace: string,
    release: string,
    revision: number,
    labels: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ) => Promise<void>;
  /**
   * The manifest with the post-renderer's ownership marks, as it would have written them for the CR: given to drift
   * repair for a deployed manifest stored without them (a release adopted from operator-sdk). @default none
   */
  readonly ownedManifest?: ((cr: CustomResource, manifest: string, signal: AbortSignal) => Promise<string>) | undefined;
  /** The watch's chart rollout: chart-driven upgrades go canary first, then a few at a time. @default none */
  readonly chartRollout?: ChartRolloutGate | undefined;
  /**
   * Where the copies of a chart go that leave out the declared dependencies helm's library does not load
   * (inputs/loaded-chart.ts). @default `<tmpdir>/helm-operator-charts`
   */
  readonly chartStageDir?: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}
