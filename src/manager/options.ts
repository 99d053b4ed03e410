// The options of the running operator, grouped as they travel: the helm it runs, what every reconcile is configured
// with, how releases are deleted, and the process-wide hooks. Types only; cmd/run.ts fills them in through the
// manager (manager.ts), and operator.ts, process.ts and watch.ts read them. Never holds state.
import type { Watch } from '../config/watches.js';
import type { Controller } from '../controller/controller.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Dependents } from '../dependents/watcher.js';
import type { HelmMiddleware } from '../helm/middleware.js';
import type { HelmClient, TemplateParams } from '../helm/types.js';
import type { KubeClient } from '../kube/types.js';
import type { OperatorMetrics } from '../observability/metrics.js';
import type { OutsideObjectMemo } from '../ownership/orphans.js';
import type { StatusManifestMode } from '../reconciler/types.js';
import type { ShardOwnership } from './shard-gate.js';

/** The helm the operator runs, and what it does with it besides the releases. */
export interface HelmSettings {
  /** The real helm adapter; the operator puts the process-wide middlewares around it (process-helm.ts). */
  readonly client: HelmClient;
  /** Middlewares of the CLI's (the helm metrics), inside the release-record observer. @default none */
  readonly middlewares?: readonly HelmMiddleware[] | undefined;
  /**
   * The operator's `helm template` (its caches and environment): each controller renders its chart once before its
   * workers start, to warm what the first install needs (warm-up.ts). @default no warm-up
   */
  readonly render?: ((p: TemplateParams) => Promise<string>) | undefined;
  /**
   * Where copies of a chart go that leave out the declared dependencies helm's library does not load (a folder of
   * this process's own). @default `<tmpdir>/helm-operator-charts`
   */
  readonly chartStageDir?: string | undefined;
}

/** What every watch's reconciles are configured with (the run flags). */
export interface ReconcileSettings {
  readonly reconcilePeriodMs: number;
  readonly maxConcurrentReconciles: number;
  /** Mask values in OverrideValuesInUse events (--suppress-override-values). */
  readonly suppressOverrideValues: boolean;
  /** What status.deployedRelease.manifest holds (--status-manifest). @default 'redacted' */
  readonly statusManifest?: StatusManifestMode | undefined;
  /**
   * Chart-driven upgrades per watch: a canary, then at most `maxConcurrent` at once, halted after more than
   * `maxFailures` failed (chart-rollout/gate.ts); `maxConcurrent` 0 turns it off. @default 2 and 0
   */
  readonly chartRollout?: { readonly maxConcurrent: number; readonly maxFailures: number } | undefined;
}

/** How the operator deletes releases (the uninstall flags). */
export interface DeletionFlags {
  /** Releases one `helm uninstall` takes at most (--max-uninstall-batch; 1: one each). @default 50 */
  readonly uninstallBatch?: number | undefined;
  /**
   * Uninstall releases with the operator's own API client (uninstall/uninstaller.ts), standing in for this helm major
   * (--in-process-uninstall); what it declines runs `helm uninstall`. @default none: every uninstall runs helm
   */
  readonly inProcessUninstall?: { readonly helmMajor: number } | undefined;
}

export interface OperatorOptions {
  readonly watches: readonly Watch[];
  /** '' means all namespaces. */
  readonly namespaces: readonly string[];
  readonly kube: KubeClient;
  readonly helm: HelmSettings;
  readonly reconcile: ReconcileSettings;
  readonly deletion: DeletionFlags;
  /** The helm client runs the ownership post-renderer: pass each CR's identity to it. @default false */
  readonly postRender?: boolean | undefined;
  /** What releases put outside their namespaces (the post-renderer adds each attempt). @default a private one */
  readonly outside?: OutsideObjectMemo | undefined;
  /** Sharding: reconcile only the CRs of the shards held (shard-gate.ts). @default every CR */
  readonly shards?: ShardOwnership | undefined;
  /** Reconcile, workqueue and resource_created_at_seconds metrics. @default none */
  readonly metrics?: OperatorMetrics | undefined;
  /** Called once every controller is built (before any starts), e.g. to answer readiness probes. */
  readonly onControllers?: ((controllers: readonly Controller[]) => void) | undefined;
  /** Called with the dependent watcher when one is built (metrics read its cache size). */
  readonly onDependentWatcher?: ((watcher: Dependents) => void) | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}
