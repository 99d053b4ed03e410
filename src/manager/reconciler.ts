// Builds the HelmReconciler of one watches.yaml entry with its real ports: CR access (the informer's copy; writes to
// the API) and release history (records/reader.ts) with the labelling of an adopted record, the event recorder,
// drift repair and dependent watches, uninstall-wait cleanup, orphan deletion and the post-renderer's arguments. Called by the manager's
// controller builder only. Never starts anything: the dependent watcher and the helm client are passed in.

import { chartName } from '../config/chart-dir.js';
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { dependentsPort } from '../dependents/port.js';
import type { DependentWatcher } from '../dependents/watcher.js';
import { DriftRepairer } from '../drift/repair.js';
import { createEventRecorder } from '../events/recorder.js';
import type { HelmClient } from '../helm/types.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import type { OperatorMetrics } from '../observability/metrics.js';
import { ownershipArgsFor } from '../ownership/context.js';
import { ownershipRenderer } from '../ownership/renderer.js';
import { type CrCache, crAccess } from '../reconciler/cr-access.js';
import { deleteOrphans, type OutsideObjectMemo } from '../reconciler/deletion/orphans.js';
import { cleanupRelease } from '../reconciler/deletion/uninstall-wait.js';
import { referenceReader } from '../reconciler/inputs/values-from.js';
import { HelmReconciler } from '../reconciler/reconciler.js';
import type { AdoptionQueue } from '../reconciler/release/adoption-queue.js';
import type { ChartRolloutGate } from '../reconciler/rollout/chart-rollout.js';
import type { CustomResource, StatusManifestMode, UninstallsPort } from '../reconciler/types.js';
import { releaseReader, SECRETS } from '../records/reader.js';
import type { ReleaseReader } from '../records/types.js';

export interface WatchReconcilerOptions {
  readonly watch: Watch;
  /** The watched kind's API resource (from discovery). */
  readonly resource: ApiResource;
  /** The CR informers: reconciles read their copy instead of a GET. @default none: a GET per reconcile */
  readonly cache?: CrCache | undefined;
  /** `<lowercase kind>-controller`: the events' component and the drift metrics' label. */
  readonly name: string;
  readonly kube: KubeClient;
  readonly helm: HelmClient;
  /** Release history: the operator's cached reader (records/informers.ts). @default a LIST per read */
  readonly releases?: ReleaseReader | undefined;
  /** Present when some watch has watchDependentResources; used only if this one has. */
  readonly watcher: DependentWatcher | undefined;
  /** Releases with a helm process running, shared by every reconciler. */
  readonly inFlight: Set<string>;
  /** What releases put outside their namespaces, shared with the post-renderer's hook. @default a private one */
  readonly outside?: OutsideObjectMemo | undefined;
  readonly reconcilePeriodMs: number;
  readonly suppressOverrideValues: boolean;
  readonly statusManifest?: StatusManifestMode | undefined;
  readonly metrics?: OperatorMetrics | undefined;
  /** Where deletion passes uninstall their releases (uninstall/queue.ts). @default helm for each release, alone */
  readonly uninstalls?: UninstallsPort | undefined;
  /** The watch's chart rollout gate (operator.ts builds it, and wakes held CRs through the controller). */
  readonly chartRollout?: ChartRolloutGate | undefined;
  /** The watch's adoption checks (operator.ts builds the queue, and wakes checked CRs through the controller). */
  readonly adoption?: AdoptionQueue | undefined;
  /** The helm client runs the ownership post-renderer: pass each CR's identity to it. */
  readonly postRender: boolean;
  /** Where copies of the chart for helm go (reconciler/inputs/loaded-chart.ts). @default `<tmpdir>/helm-operator-charts` */
  readonly chartStageDir?: string | undefined;
  readonly clock: Clock;
  /** The controller's logger. */
  readonly logger: Logger;
}

export function watchReconciler(o: WatchReconcilerOptions): HelmReconciler {
  const { watch, kube, name, logger, watcher } = o;
  const events = createEventRecorder({ kube, component: name, clock: o.clock, logger });
  const watched = watcher && watch.watchDependentResources ? watcher : undefined;
  const repairer = new DriftRepairer({
    kube,
    ...(watched ? { cached: watched.get.bind(watched), onApplied: watched.expectEcho.bind(watched) } : {}),
  });
  const dependents = dependentsPort({
    kube,
    ...(watched ? { watcher: watched } : {}),
    repairer,
    events,
    onCorrected: (c) => o.metrics?.driftCorrected(name, c.kind, c.action),
  });
  const chart = chartName(watch.chart);
  return new HelmReconciler({
    watch,
    chartName: chart,
    dependents,
    references: referenceReader(kube),
    ...(o.postRender ? { postRenderArgs: ownershipArgsFor(chart) } : {}),
    // The marks the post-renderer would have written, for drift repair of a release adopted without them.
    ...(o.postRender ? { ownedManifest: ownedManifest(kube, ownershipArgsFor(chart)) } : {}),
    defaultReconcilePeriodMs: o.reconcilePeriodMs,
    periodJitter: Math.random, // ±10 %: CRs created together do not stay in lockstep
    crs: crAccess(kube, o.resource, { cache: o.cache }),
    releases: o.releases ?? releaseReader(kube),
    helm: o.helm,
    events,
    cleanup: (manifest, namespace, s) => cleanupRelease({ kube, manifest, namespace, signal: s, logger }),
    orphans: (refs, release, namespace, s) => deleteOrphans({ kube, refs, release, namespace, signal: s, logger }),
    inFlight: o.inFlight,
    ...(o.outside ? { outside: o.outside } : {}),
    suppressOverrideValues: o.suppressOverrideValues,
    ...(o.statusManifest ? { statusManifest: o.statusManifest } : {}),
    ...(o.chartRollout ? { chartRollout: o.chartRollout } : {}),
    ...(o.adoption ? { adoption: o.adoption } : {}),
    // helm's own record name (`sh.helm.release.v1.<release>.v<revision>`); a merge patch keeps its other labels.
    labelRecord: async (namespace, release, revision, labels, signal) => {
      const record = `sh.helm.release.v1.${release}.v${revision}`;
      await kube.patch(SECRETS, namespace, record, { metadata: { labels } }, 'merge', { signal });
    },
    uninstalls: o.uninstalls,
    chartStageDir: o.chartStageDir,
    clock: o.clock,
    logger,
  });
}

/** The ownership post-render step run in-process on a stored manifest, for the CR whose release it is. */
function ownedManifest(kube: KubeClient, args: (cr: CustomResource) => readonly string[]) {
  const render = ownershipRenderer(kube);
  return (cr: CustomResource, manifest: string, signal: AbortSignal) => render({ args: args(cr), manifest }, signal);
}
