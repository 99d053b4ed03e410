// Builds and runs the operator from validated options: one controller per watches.yaml entry, each fed by one
// informer per watched namespace, reconciling through HelmReconciler. Called by `helm-operator run` (main.ts).
// Receives every real dependency (kube client, helm, logger, env); never reads process.* and never exits.

import { Informer } from '../cache/informer.js';
import { keyOf } from '../cache/store.js';
import { chartName, type Watch } from '../config/watches.js';
import { Controller } from '../controller/controller.js';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { dependentsPort } from '../dependents/port.js';
import { DependentWatcher } from '../dependents/watcher.js';
import { DriftRepairer } from '../drift/repair.js';
import { createEventRecorder } from '../events/recorder.js';
import { FINALIZER } from '../finalizers/finalizers.js';
import type { HelmClient } from '../helm/cli.js';
import { NotFoundError } from '../kube/errors.js';
import type { KubeClient, KubeObject } from '../kube/types.js';
import type { OperatorMetrics } from '../observability/metrics.js';
import { formatOwnershipArgs } from '../ownership/context.js';
import { cleanupRelease } from '../reconciler/cleanup.js';
import { deleteOrphans } from '../reconciler/orphans.js';
import { HelmReconciler } from '../reconciler/reconciler.js';
import type { CustomResource, StatusManifestMode } from '../reconciler/types.js';
import { crAccess, releaseReader } from './adapters.js';

export interface OperatorOptions {
  readonly watches: readonly Watch[];
  /** '' means all namespaces. */
  readonly namespaces: readonly string[];
  readonly reconcilePeriodMs: number;
  readonly maxConcurrentReconciles: number;
  readonly kube: KubeClient;
  readonly helm: HelmClient;
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
}

/** Resolves every watch to its API resource (failing clearly when a CRD is missing), then runs until aborted. */
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
          trigger: (t) => {
            const controller = byGroupKind.get(t.groupKind);
            if (!controller) return;
            const added = controller.enqueueDependent(t.key);
            o.logger.debug(
              { controller: controller.name, key: t.key, trigger: { ...t.object, event: t.event } },
              added ? 'Dependent changed: reconcile its owner' : 'Dependent changed: owner is in failure backoff',
            );
          },
        });
  if (watcher) o.onDependentWatcher?.(watcher);
  for (const watch of o.watches) {
    const gvk = { group: watch.group, version: watch.version, kind: watch.kind };
    const gvkText = `${watch.group}/${watch.version}, Kind=${watch.kind}`;
    const res = await o.kube.discover(gvk, { signal }).catch((err: unknown) => {
      if (err instanceof NotFoundError) {
        throw new ConfigError(
          `watches.yaml: the API server does not serve ${gvkText}; install its CustomResourceDefinition first`,
          { cause: err, code: 'CRD_NOT_FOUND' },
        );
      }
      throw err;
    });
    const name = `${watch.kind.toLowerCase()}-controller`;
    const logger = o.logger.child({ controller: name });
    const events = createEventRecorder({
      kube: o.kube,
      component: name,
      clock: o.clock,
      logger,
    });
    const repairer = new DriftRepairer({
      kube: o.kube,
      ...(watcher && watch.watchDependentResources
        ? { cached: watcher.get.bind(watcher), onApplied: watcher.expectEcho.bind(watcher) }
        : {}),
    });
    const dependents = dependentsPort({
      kube: o.kube,
      ...(watcher && watch.watchDependentResources ? { watcher } : {}),
      repairer,
      events,
      onCorrected: (c) => o.metrics?.driftCorrected(name, c.kind, c.action),
    });
    const chart = chartName(watch.chart);
    const reconciler = new HelmReconciler({
      watch,
      chartName: chart,
      dependents,
      ...(o.postRender
        ? {
            postRenderArgs: (cr: CustomResource) =>
              formatOwnershipArgs({
                owner: {
                  apiVersion: cr.apiVersion,
                  kind: cr.kind,
                  namespace: cr.metadata.namespace ?? '',
                  name: cr.metadata.name,
                  uid: cr.metadata.uid ?? '',
                },
                chart,
                releaseNamespace: cr.metadata.namespace ?? '',
              }),
          }
        : {}),
      defaultReconcilePeriodMs: o.reconcilePeriodMs,
      crs: crAccess(o.kube, res),
      releases: releaseReader(o.kube),
      helm: o.helm,
      events,
      cleanup: (manifest, namespace, s) => cleanupRelease({ kube: o.kube, manifest, namespace, signal: s, logger }),
      orphans: (refs, release, namespace, s) =>
        deleteOrphans({ kube: o.kube, refs, release, namespace, signal: s, logger }),
      inFlight,
      suppressOverrideValues: o.suppressOverrideValues,
      ...(o.statusManifest ? { statusManifest: o.statusManifest } : {}),
      clock: o.clock,
      logger,
    });
    const controller = new Controller({
      name,
      reconcile: (key, s, log) => reconciler.reconcile(key, s, log),
      concurrency: watch.maxConcurrentReconciles ?? o.maxConcurrentReconciles,
      clock: o.clock,
      logger: o.logger,
      ...(o.metrics ? { metrics: o.metrics.controller(name) } : {}),
    });
    const created = (obj: KubeObject) => {
      const labels = { ...gvk, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '' };
      const at = obj.metadata.creationTimestamp;
      return { labels, at: typeof at === 'string' ? at : undefined };
    };
    const namespaces = res.namespaced ? o.namespaces : [''];
    for (const namespace of namespaces) {
      const informer = new Informer({
        client: o.kube,
        resource: res,
        namespace,
        ...(watch.labelSelector ? { labelSelector: watch.labelSelector } : {}),
        clock: o.clock,
        onEvent: (e) => {
          if (e.type === 'error') logger.warn({ namespace, phase: e.phase, err: String(e.error) }, 'Watch error');
        },
      });
      informer.addEventHandler({
        onAdd: (obj) => {
          logger.debug({ key: keyOf(obj), trigger: 'add' }, 'Custom resource seen: reconcile');
          const c = created(obj);
          o.metrics?.resourceSeen(c.labels, c.at);
          controller.enqueue(keyOf(obj));
        },
        onUpdate: (old, obj) => {
          const c = created(obj);
          o.metrics?.resourceSeen(c.labels, c.at);
          // Our own status writes would otherwise re-trigger every CR at once and defeat the failure backoff.
          if (!changedBeyondStatus(old, obj)) return;
          // A new spec deserves a prompt attempt: it resets the key's backoff (operator-sdk keeps it).
          if (old.metadata.generation !== obj.metadata.generation) controller.resetBackoff(keyOf(obj));
          logger.debug({ key: keyOf(obj), trigger: 'update' }, 'Custom resource changed: reconcile');
          controller.enqueue(keyOf(obj));
        },
        onDelete: (obj) => {
          o.metrics?.resourceDeleted(created(obj).labels);
          controller.enqueue(keyOf(obj));
        },
      });
      controller.addSource(informer);
    }
    logger.info({ gvk: gvkText, chart: watch.chart, namespaces }, 'Watching resource');
    controllers.push(controller);
    byGroupKind.set(watch.group ? `${watch.kind}.${watch.group}` : watch.kind, controller);
  }
  o.onControllers?.(controllers);
  await Promise.all(controllers.map((c) => c.run(signal)));
}

/**
 * True when anything but status (and the bookkeeping that comes with it) changed: spec, labels, annotations,
 * deletion, or finalizers other than our own being added (which the reconciler itself just did).
 */
export function changedBeyondStatus(old: KubeObject, obj: KubeObject): boolean {
  const a = old.metadata;
  const b = obj.metadata;
  if (a.generation !== b.generation || a.deletionTimestamp !== b.deletionTimestamp) return true;
  const same = (x: unknown, y: unknown) => JSON.stringify(x ?? null) === JSON.stringify(y ?? null);
  const others = (f: string[] | undefined) => (f ?? []).filter((x) => x !== FINALIZER);
  const ourAdded = !(a.finalizers ?? []).includes(FINALIZER) && (b.finalizers ?? []).includes(FINALIZER);
  const finalizersChanged = ourAdded
    ? !same(others(a.finalizers), others(b.finalizers))
    : !same(a.finalizers, b.finalizers);
  return !same(a.labels, b.labels) || !same(a.annotations, b.annotations) || finalizersChanged;
}
