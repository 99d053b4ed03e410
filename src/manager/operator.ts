// Builds and runs the operator's controllers from validated options: one controller per watches.yaml entry, each
// fed by one informer per watched namespace (crEventHandler), reconciling through HelmReconciler, plus the
// dependent watcher. Called by the manager (manager.ts) once it may lead; never reads process.* or exits.
import { Informer } from '../cache/informer.js';
import { InformerSet } from '../cache/informer-set.js';
import { keyOf } from '../cache/store.js';
import { transformingClient } from '../cache/strip.js';
import { chartName } from '../config/chart-dir.js';
import type { Watch } from '../config/watches.js';
import { Controller } from '../controller/controller.js';
import { crEventHandler, dependentRouter } from '../controller/event-handlers.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { DependentWatcher } from '../dependents/watcher.js';
import type { HelmMiddleware } from '../helm/middleware.js';
import type { HelmClient, TemplateParams } from '../helm/types.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import type { OperatorMetrics } from '../observability/metrics.js';
import { ownershipArgsFor } from '../ownership/context.js';
import type { OutsideObjectMemo } from '../reconciler/deletion/orphans.js';
import { AdoptionQueue } from '../reconciler/release/adoption-queue.js';
import { ChartRolloutGate } from '../reconciler/rollout/chart-rollout.js';
import type { CustomResource, StatusManifestMode } from '../reconciler/types.js';
import { releaseInformers } from '../records/informers.js';
import { ValuesFromWatch } from '../references/values-from-watch.js';
import { uninstallQueue } from '../uninstall/queue.js';
import { Uninstaller } from '../uninstall/uninstaller.js';
import { runGroup } from './group.js';
import { processHelm } from './process-helm.js';
import { watchReconciler } from './reconciler.js';
import { type ShardOwnership, shardGate } from './shard-gate.js';
import { warmUp, warmUpOwner } from './warm-up.js';

export interface OperatorOptions {
  readonly watches: readonly Watch[];
  /** '' means all namespaces. */
  readonly namespaces: readonly string[];
  readonly reconcilePeriodMs: number;
  readonly maxConcurrentReconciles: number;
  /** Releases one `helm uninstall` takes at most (--max-uninstall-batch; 1: one each). @default 50 */
  readonly uninstallBatch?: number;
  /**
   * Uninstall releases with the operator's own API client (uninstall/uninstaller.ts), standing in for this helm major
   * (--in-process-uninstall); what it declines runs `helm uninstall`. @default none: every uninstall runs helm
   */
  readonly inProcessUninstall?: { readonly helmMajor: number } | undefined;
  readonly kube: KubeClient;
  /** The real helm adapter; the operator puts the process-wide middlewares around it (process-helm.ts). */
  readonly helm: HelmClient;
  /** Middlewares of the CLI's (the helm metrics), inside the release-record observer. @default none */
  readonly helmMiddlewares?: readonly HelmMiddleware[];
  readonly clock: Clock;
  readonly logger: Logger;
  /** Mask values in OverrideValuesInUse events (--suppress-override-values). */
  readonly suppressOverrideValues: boolean;
  /** What status.deployedRelease.manifest holds (--status-manifest). @default 'redacted' */
  readonly statusManifest?: StatusManifestMode;
  /** Reconcile, workqueue and resource_created_at_seconds metrics. @default none */
  readonly metrics?: OperatorMetrics;
  /** Called once every controller is built (before any starts), e.g. to answer readiness probes. */
  readonly onControllers?: (controllers: readonly Controller[]) => void;
  /** The helm client runs the ownership post-renderer: pass each CR's identity to it. @default false */
  readonly postRender?: boolean;
  /** Called with the dependent watcher when one is built (metrics read its cache size). */
  readonly onDependentWatcher?: (watcher: DependentWatcher) => void;
  /** What releases put outside their namespaces (the post-renderer adds each attempt). @default a private one */
  readonly outside?: OutsideObjectMemo;
  /** Sharding: reconcile only the CRs of the shards held (shard-gate.ts). @default every CR */
  readonly shards?: ShardOwnership | undefined;
  /**
   * Chart-driven upgrades per watch: a canary, then at most `maxConcurrent` at once, halted after more than
   * `maxFailures` failed (reconciler/rollout/chart-rollout.ts); `maxConcurrent` 0 turns it off. @default 2 and 0
   */
  readonly chartRollout?: { readonly maxConcurrent: number; readonly maxFailures: number } | undefined;
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

/**
 * Resolves every watch to its API resource (failing clearly when a CRD is missing), then runs the controllers until
 * aborted; one that fails stops the others.
 */
export async function runOperator(o: OperatorOptions, signal: AbortSignal): Promise<void> {
  const controllers: Controller[] = [];
  const inFlight = new Set<string>();
  /** Controllers by the `Kind.group` of their CRs: where dependent events are routed. */
  const byGroupKind = new Map<string, Controller>();
  const watching = o.watches.filter((w) => w.watchDependentResources);
  const watcher =
    watching.length === 0
      ? undefined
      : new DependentWatcher({
          kube: o.kube,
          namespaces: o.namespaces,
          charts: watching.map((w) => chartName(w.chart)),
          clock: o.clock,
          logger: o.logger.child({ component: 'dependents' }),
          signal,
          trigger: dependentRouter(byGroupKind, o.logger),
        });
  if (watcher) o.onDependentWatcher?.(watcher);
  // Release history from a metadata-only cache of Helm's records, trusted once it shows what our own helm did.
  const records = releaseInformers({ kube: o.kube, namespaces: o.namespaces, clock: o.clock, logger: o.logger });
  const helm = processHelm({
    helm: o.helm,
    records: records.reader,
    ...(o.helmMiddlewares ? { middlewares: o.helmMiddlewares } : {}),
  });
  const uninstaller =
    o.inProcessUninstall &&
    new Uninstaller({
      kube: o.kube,
      helmMajor: o.inProcessUninstall.helmMajor,
      cachedRecords: (namespace, release) => records.reader.cachedRecords(namespace, release),
      observe: (namespace, release, outcome) => records.reader.observe(namespace, release, outcome),
    });
  // Reconciles the CRs whose values-from ConfigMaps and Secrets change (watches only the referenced ones).
  const valuesFrom = new ValuesFromWatch({ kube: o.kube, clock: o.clock, logger: o.logger, signal });
  for (const watch of o.watches) {
    const gvk = { group: watch.group, version: watch.version, kind: watch.kind };
    const gvkText = `${watch.group}/${watch.version}, Kind=${watch.kind}`;
    const resource = await discover(o.kube, gvk, gvkText, signal);
    const name = `${watch.kind.toLowerCase()}-controller`;
    const logger = o.logger.child({ controller: name });
    // The CR informers, by namespace ('' = all namespaces, or a cluster-scoped kind): reconciles read from them.
    const informers = new InformerSet<Informer>(resource.namespaced);
    const gate = o.shards && shardGate({ shards: o.shards, cached: informers.getKey.bind(informers) });
    const workers = watch.maxConcurrentReconciles ?? o.maxConcurrentReconciles;
    const limits = o.chartRollout ?? { maxConcurrent: 2, maxFailures: 0 };
    const rollout =
      limits.maxConcurrent > 0
        ? new ChartRolloutGate({ ...limits, controller: name, metrics: o.metrics, logger })
        : undefined;
    // Releases to adopt are checked in the background, as many at once as the workers, which stay free for CRs
    // with real changes; each checked CR is woken.
    const adoption = new AdoptionQueue({ concurrency: workers, signal });
    const reconciler = watchReconciler({
      watch,
      resource,
      cache: informers,
      name,
      kube: o.kube,
      helm,
      releases: records.reader,
      watcher,
      inFlight,
      ...(o.outside ? { outside: o.outside } : {}),
      reconcilePeriodMs: o.reconcilePeriodMs,
      suppressOverrideValues: o.suppressOverrideValues,
      statusManifest: o.statusManifest,
      metrics: o.metrics,
      chartRollout: rollout,
      adoption,
      // The uninstall queue coalesces only CRs this replica reconciles: being deleted, and of a shard it holds.
      uninstalls: uninstallQueue({
        uninstaller: uninstaller || undefined,
        deleting: (namespace) =>
          informers
            .list(namespace)
            .filter((cr) => cr.metadata.deletionTimestamp && (!gate || gate.admit(keyOf(cr))))
            .map((cr) => cr as unknown as CustomResource),
        batch: o.uninstallBatch,
        lanes: workers,
        inFlight,
      }),
      postRender: o.postRender ?? false,
      chartStageDir: o.chartStageDir,
      clock: o.clock,
      logger,
    });
    const controller = new Controller({
      name,
      reconcile: gate
        ? (key, s, log) => gate.run(key, s, (held) => reconciler.reconcile(key, held, log), {})
        : reconciler.reconcile.bind(reconciler),
      ...(gate ? { admit: gate.admit } : {}),
      concurrency: workers,
      clock: o.clock,
      logger: o.logger,
      ...(o.metrics ? { metrics: o.metrics.controller(name) } : {}),
    });
    rollout?.onWake((key) => controller.enqueue(key)); // a held CR goes as soon as its turn comes
    adoption.onWake((key) => controller.enqueue(key)); // its check is done: adopt or upgrade
    const namespaces = resource.namespaced ? o.namespaces : [''];
    for (const namespace of namespaces) {
      const informer = new Informer({
        client: transformingClient(o.kube), // without managedFields
        resource,
        namespace,
        ...(watch.labelSelector ? { labelSelector: watch.labelSelector } : {}),
        clock: o.clock,
        onEvent: (e) => {
          if (e.type === 'error') logger.warn({ namespace, phase: e.phase, err: errFields(e.error) }, 'Watch error');
          else if (e.type === 'list') logger.debug({ gvk: gvkText, namespace, items: e.items }, 'Informer listed');
        },
      });
      informer.addEventHandler(crEventHandler({ gvk, controller, logger, metrics: o.metrics }));
      // A referenced object's change is new input, like a new spec: a prompt attempt, backoff reset.
      const reconcileNow = (key: string) => {
        controller.resetBackoff(key);
        controller.enqueue(key);
      };
      informer.addEventHandler(valuesFrom.handler(gvkText, reconcileNow));
      informers.add(namespace, informer);
      controller.addSource(informer);
    }
    // The workers start once the chart has been rendered against the cluster (post-renderer included) and its
    // kinds' informers listed, or after the warm-up's bound.
    if (o.render) {
      const namespace = namespaces[0] || 'default';
      const owner = warmUpOwner(watch, namespace);
      const postRenderArgs = o.postRender ? ownershipArgsFor(chartName(watch.chart))(owner) : undefined;
      const depends = watch.watchDependentResources ? watcher : undefined;
      const source = { chart: watch.chart, namespace, postRenderArgs, render: o.render, kube: o.kube, logger };
      const prepare = (signal: AbortSignal) => reconciler.prepare(signal);
      const chartPath = (signal: AbortSignal) => reconciler.chartForRender(signal);
      controller.addSource(warmUp({ ...source, chartPath, watcher: depends, prepare }));
    }
    // Taking a shard reconciles its CRs: the informers saw them while it was not ours.
    o.shards?.onAcquired((shard) => {
      for (const informer of informers.values())
        for (const key of gate?.keysOf(shard, informer.list()) ?? []) controller.enqueue(key);
    });
    logger.info({ gvk: gvkText, chart: watch.chart, namespaces }, 'Watching resource');
    controllers.push(controller);
    byGroupKind.set(watch.group ? `${watch.kind}.${watch.group}` : watch.kind, controller);
  }
  o.onControllers?.(controllers);
  await runGroup([...controllers.map((c) => (s: AbortSignal) => c.run(s)), (s) => records.run(s)], signal);
}

/** The watched kind's API resource; a ConfigError (CRD_NOT_FOUND) when the API server does not serve it. */
async function discover(
  kube: KubeClient,
  gvk: { group: string; version: string; kind: string },
  gvkText: string,
  signal: AbortSignal,
): Promise<ApiResource> {
  return kube.discover(gvk, { signal }).catch((err: unknown) => {
    if (err instanceof NotFoundError) {
      throw new ConfigError(
        `watches.yaml: the API server does not serve ${gvkText}; install its CustomResourceDefinition first`,
        { cause: err, code: 'CRD_NOT_FOUND' },
      );
    }
    throw err;
  });
}
