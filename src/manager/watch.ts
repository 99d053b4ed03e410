// One watch of watches.yaml built as controller-runtime's builder builds one controller per type: its API resource
// (discovery), its CR informers (one per namespace, feeding the controller and the values-from watch), the shard
// gate, the chart rollout gate, the adoption queue, the reconciler (reconciler.ts), the controller, the start-up
// warm-up; with sharding, one CR informer per shard held and the shard labeller and mover (shard-crs.ts). Called by
// operator.ts once per watch; starts nothing (the controller runs its sources).
import { AdoptionQueue } from '../adoption/queue.js';
import { Informer } from '../cache/informer.js';
import { InformerSet } from '../cache/informer-set.js';
import { keyOf } from '../cache/store.js';
import { transformingClient } from '../cache/strip.js';
import { ChartRolloutGate } from '../chart-rollout/gate.js';
import { chartName } from '../config/chart-dir.js';
import type { Watch } from '../config/watches.js';
import { Controller } from '../controller/controller.js';
import { crEventHandler } from '../controller/event-handlers.js';
import { errFields } from '../core/error-fields.js';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import { ownershipArgsFor } from '../ownership/context.js';
import type { HelmReconciler } from '../reconciler/reconciler.js';
import type { CustomResource } from '../reconciler/types.js';
import { uninstallQueue } from '../uninstall/queue.js';
import type { OperatorParts } from './process.js';
import { watchReconciler } from './reconciler.js';
import { shardedCrs } from './shard-crs.js';
import { type ShardGate, shardGate } from './shard-gate.js';
import type { ShardInformers } from './shard-informers.js';
import { warmUp, warmUpOwner } from './warm-up.js';

/** What the parts of one watch are built from. */
interface WatchContext {
  readonly parts: OperatorParts;
  readonly watch: Watch;
  readonly names: WatchNames;
  readonly logger: Logger;
}

/** The watch's identity as discovery and the logs name it. */
interface WatchNames {
  readonly gvk: { readonly group: string; readonly version: string; readonly kind: string };
  /** `group/version, Kind=kind`, as operator-sdk logs it. */
  readonly text: string;
  /** `<lowercase kind>-controller`: the controller's, the events' component and the metrics' label. */
  readonly controller: string;
}

/** Builds the controller of one watch, with its informers as its sources; fails when its CRD is not served. */
export async function buildWatch(parts: OperatorParts, watch: Watch, signal: AbortSignal): Promise<Controller> {
  const o = parts.options;
  const gvk = { group: watch.group, version: watch.version, kind: watch.kind };
  const names = {
    gvk,
    text: `${watch.group}/${watch.version}, Kind=${watch.kind}`,
    controller: `${watch.kind.toLowerCase()}-controller`,
  };
  const resource = await discover(o.kube, names, signal);
  const logger = o.logger.child({ controller: names.controller });
  // The CR informers, by namespace ('' = all namespaces, or a cluster-scoped kind): reconciles read from them.
  const informers = new InformerSet<Informer | ShardInformers>(resource.namespaced);
  const gate = o.shards && shardGate({ shards: o.shards, cached: informers.getKey.bind(informers) });
  const workers = watch.maxConcurrentReconciles ?? o.reconcile.maxConcurrentReconciles;
  const limits = o.reconcile.chartRollout ?? { maxConcurrent: 2, maxFailures: 0 };
  const rollout =
    limits.maxConcurrent > 0
      ? new ChartRolloutGate({ ...limits, controller: names.controller, metrics: o.metrics, logger })
      : undefined;
  // Releases to adopt are checked in the background, as many at once as the workers, which stay free for CRs
  // with real changes; each checked CR is woken.
  const adoption = new AdoptionQueue({ concurrency: workers, signal });
  const reconciler = watchReconciler({
    parts,
    watch,
    resource,
    cache: informers,
    name: names.controller,
    chartRollout: rollout,
    adoption,
    deletion: {
      // The uninstall queue coalesces only CRs this replica reconciles: being deleted, and of a shard it holds.
      uninstalls: uninstallQueue({
        uninstaller: parts.uninstaller,
        deleting: (namespace) =>
          informers
            .list(namespace)
            .filter((cr) => cr.metadata.deletionTimestamp && (!gate || gate.admit(keyOf(cr))))
            .map((cr) => cr as unknown as CustomResource),
        batch: o.deletion.uninstallBatch,
        lanes: workers,
        inFlight: parts.inFlight,
      }),
    },
    logger,
  });
  const ctx: WatchContext = { parts, watch, names, logger };
  const controller = newController(ctx, reconciler, gate, workers);
  rollout?.onWake((key) => controller.enqueue(key)); // a held CR goes as soon as its turn comes
  adoption.onWake((key) => controller.enqueue(key)); // its check is done: adopt or upgrade
  const namespaces = resource.namespaced ? o.namespaces : [''];
  for (const namespace of namespaces) {
    const newInformer = (labelSelector: string | undefined) => crInformer(ctx, resource, namespace, labelSelector);
    // Sharding: one informer per shard held, and the labeller of the CRs without a shard (shard-crs.ts).
    const sharded =
      o.shards &&
      gate &&
      shardedCrs({
        kube: o.kube,
        clock: o.clock,
        shards: o.shards,
        resource,
        watch,
        newInformer,
        namespace,
        gate,
        logger,
        enqueue: controller.enqueue,
      });
    if (sharded) for (const source of [sharded.labeller, sharded.mover]) controller.addSource(source);
    const informer = sharded?.informers ?? newInformer(watch.labelSelector);
    withHandlers(ctx, informer, controller);
    informers.add(namespace, informer);
    controller.addSource(informer);
  }
  // The workers start once the chart has been rendered against the cluster (post-renderer included) and its
  // kinds' informers listed, or after the warm-up's bound.
  const render = o.helm.render;
  if (render) {
    const namespace = namespaces[0] || 'default';
    const postRenderArgs = o.postRender
      ? ownershipArgsFor(chartName(watch.chart))(warmUpOwner(watch, namespace))
      : undefined;
    const watcher = watch.watchDependentResources ? parts.watcher : undefined;
    const prepare = (s: AbortSignal) => reconciler.prepare(s);
    const chartPath = (s: AbortSignal) => reconciler.chartForRender(s);
    const source = { chart: watch.chart, namespace, postRenderArgs, render, kube: o.kube, logger };
    controller.addSource(warmUp({ ...source, chartPath, watcher, prepare }));
  }
  logger.info({ gvk: names.text, chart: watch.chart, namespaces }, 'Watching resource');
  parts.routes.set(watch.group ? `${watch.kind}.${watch.group}` : watch.kind, controller);
  return controller;
}

/** The watch's controller: its reconciles go through the shard gate when sharding. */
function newController(
  ctx: WatchContext,
  reconciler: HelmReconciler,
  gate: ShardGate | undefined,
  workers: number,
): Controller {
  const { clock, logger, metrics } = ctx.parts.options;
  const name = ctx.names.controller;
  return new Controller({
    name,
    reconcile: gate
      ? (key, s, log) => gate.run(key, s, (held) => reconciler.reconcile(key, held, log), {})
      : reconciler.reconcile.bind(reconciler),
    ...(gate ? { admit: gate.admit } : {}),
    concurrency: workers,
    clock,
    logger,
    ...(metrics ? { metrics: metrics.controller(name) } : {}),
  });
}

/** A CR informer of one namespace, of the CRs that match `labelSelector`. */
function crInformer(
  ctx: WatchContext,
  resource: ApiResource,
  namespace: string,
  labelSelector: string | undefined,
): Informer {
  const { parts, names, logger } = ctx;
  const { kube, clock } = parts.options;
  return new Informer({
    client: transformingClient(kube), // without managedFields
    resource,
    namespace,
    ...(labelSelector ? { labelSelector } : {}),
    clock,
    onEvent: (e) => {
      if (e.type === 'error') logger.warn({ namespace, phase: e.phase, err: errFields(e.error) }, 'Watch error');
      else if (e.type === 'list') logger.debug({ gvk: names.text, namespace, items: e.items }, 'Informer listed');
    },
  });
}

/** The CR events of one namespace go to the controller, and to the values-from reference watch. */
function withHandlers(ctx: WatchContext, informer: Informer | ShardInformers, controller: Controller): void {
  const { parts, names, logger } = ctx;
  const { metrics } = parts.options;
  informer.addEventHandler(crEventHandler({ gvk: names.gvk, controller, logger, metrics }));
  // A referenced object's change is new input, like a new spec: a prompt attempt, backoff reset.
  const reconcileNow = (key: string) => {
    controller.resetBackoff(key);
    controller.enqueue(key);
  };
  informer.addEventHandler(parts.valuesFrom.handler(names.text, reconcileNow));
}

/** The watched kind's API resource; a ConfigError (CRD_NOT_FOUND) when the API server does not serve it. */
async function discover(kube: KubeClient, names: WatchNames, signal: AbortSignal): Promise<ApiResource> {
  return kube.discover(names.gvk, { signal }).catch((err: unknown) => {
    if (err instanceof NotFoundError) {
      throw new ConfigError(
        `watches.yaml: the API server does not serve ${names.text}; install its CustomResourceDefinition first`,
        { cause: err, code: 'CRD_NOT_FOUND' },
      );
    }
    throw err;
  });
}
