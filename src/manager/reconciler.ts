// Builds the HelmReconciler of one watches.yaml entry with its real ports: CR access (the informer's copy; writes to
// the API) and release history (the process's record informers) with the labelling of an adopted record, the event
// recorder, drift repair and dependent watches, uninstall-wait cleanup, orphan deletion and the post-renderer's
// arguments. Called by the watch builder (watch.ts) only. Never starts anything: the process-wide parts are passed in.
import type { AdoptionQueue } from '../adoption/queue.js';
import type { ChartRolloutGate } from '../chart-rollout/gate.js';
import { chartName } from '../config/chart-dir.js';
import type { Watch } from '../config/watches.js';
import type { Logger } from '../core/logger.js';
import { type CrCache, crAccess } from '../crs/access.js';
import { PodCauses } from '../dependents/pod-causes.js';
import { dependentsPort } from '../dependents/port.js';
import { type DriftCorrection, DriftRepairer } from '../drift/repair.js';
import { createEventRecorder } from '../events/recorder.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import { shardLabelValue } from '../leader/shard-label.js';
import { type OwnerObject, ownershipArgsFor } from '../ownership/context.js';
import { deleteOrphans } from '../ownership/orphans.js';
import { ownershipRenderer } from '../ownership/renderer.js';
import type { DeletionSettings } from '../reconciler/options.js';
import { HelmReconciler } from '../reconciler/reconciler.js';
import type { CustomResource, EventSink } from '../reconciler/types.js';
import { SECRETS } from '../records/reader.js';
import { referenceReader } from '../references/reference-reader.js';
import { cleanupRelease } from '../uninstall/uninstall-wait.js';
import type { OperatorParts } from './process.js';

export interface WatchReconcilerOptions {
  /** The process-wide parts: kube, helm, release records, dependent watcher, in-flight set, settings (process.ts). */
  readonly parts: OperatorParts;
  readonly watch: Watch;
  /** The watched kind's API resource (from discovery). */
  readonly resource: ApiResource;
  /** The CR informers: reconciles read their copy instead of a GET. */
  readonly cache: CrCache;
  /** `<lowercase kind>-controller`: the events' component and the drift metrics' label. */
  readonly name: string;
  /** The watch's chart rollout gate (watch.ts builds it, and wakes held CRs through the controller). @default none */
  readonly chartRollout: ChartRolloutGate | undefined;
  /** The watch's adoption checks (watch.ts builds the queue, and wakes checked CRs through the controller). */
  readonly adoption: AdoptionQueue;
  /** How the watch's CRs are deleted: batches, lanes, the in-process uninstaller. */
  readonly deletion: DeletionSettings;
  /** The controller's logger. */
  readonly logger: Logger;
}

export function watchReconciler(o: WatchReconcilerOptions): HelmReconciler {
  const { watch, name, logger } = o;
  const { kube, clock, metrics, reconcile, helm, postRender, outside } = o.parts.options;
  const events = createEventRecorder({ kube, component: name, clock, logger });
  const chart = chartName(watch.chart);
  const shards = o.parts.options.shards;
  const shardOf = shards && ((cr: OwnerObject) => shardLabelValue(cr, shards.count));
  const ownership = postRender ? ownershipArgsFor(chart, shardOf) : undefined;
  return new HelmReconciler({
    watch,
    chartName: chart,
    dependents: dependents(o, events, (c) => metrics?.driftCorrected(name, c.kind, c.action)),
    references: referenceReader(kube),
    postRenderArgs: ownership,
    shardOf,
    // The marks the post-renderer would have written, for drift repair of a release adopted without them.
    ownedManifest: ownership && ownedManifest(kube, ownership),
    defaultReconcilePeriodMs: reconcile.reconcilePeriodMs,
    periodJitter: Math.random, // ±10 %: CRs created together do not stay in lockstep
    crs: crAccess(kube, o.resource, { cache: o.cache }),
    releases: o.parts.records.reader,
    helm: o.parts.helm,
    events,
    cleanup: (manifest, namespace, s) => cleanupRelease({ kube, manifest, namespace, signal: s, logger }),
    orphans: (refs, release, namespace, s) => deleteOrphans({ kube, refs, release, namespace, signal: s, logger }),
    inFlight: o.parts.inFlight,
    outside,
    suppressOverrideValues: reconcile.suppressOverrideValues,
    statusManifest: reconcile.statusManifest,
    chartRollout: o.chartRollout,
    adoption: o.adoption,
    // helm's own record name (`sh.helm.release.v1.<release>.v<revision>`); a merge patch keeps its other labels.
    labelRecord: async (namespace, release, revision, labels, signal) => {
      const record = `sh.helm.release.v1.${release}.v${revision}`;
      await kube.patch(SECRETS, namespace, record, { metadata: { labels } }, 'merge', { signal });
    },
    ...o.deletion,
    chartStageDir: helm.chartStageDir,
    clock,
    logger,
  });
}

/** The dependents port: drift repair, and the dependent watches when this watch has watchDependentResources. */
function dependents(o: WatchReconcilerOptions, events: EventSink, onCorrected: (c: DriftCorrection) => void) {
  const { kube, clock } = o.parts.options;
  const watched = o.watch.watchDependentResources ? o.parts.watcher : undefined;
  // Why a workload is not ready, from its pods: only where Ready is kept current (the dependent watches).
  const pods = watched && new PodCauses({ kube, clock, logger: o.logger });
  const repairer = new DriftRepairer({
    kube,
    ...(watched ? { cached: watched.get.bind(watched), onApplied: watched.expectEcho.bind(watched) } : {}),
  });
  return dependentsPort({
    kube,
    ...(watched ? { watcher: watched } : {}),
    ...(pods ? { pods } : {}),
    repairer,
    events,
    onCorrected,
  });
}

/** The ownership post-render step run in-process on a stored manifest, for the CR whose release it is. */
function ownedManifest(kube: KubeClient, args: (cr: CustomResource) => readonly string[]) {
  const render = ownershipRenderer(kube);
  return (cr: CustomResource, manifest: string, signal: AbortSignal) => render({ args: args(cr), manifest }, signal);
}
