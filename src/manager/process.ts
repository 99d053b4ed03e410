// The process-wide parts of the running operator, built once before any watch and handed to each as one object:
// the helm client with its process-wide middlewares, the release-record informers, the dependent watcher and the
// route of its events, the values-from reference watch, the in-process uninstaller, the releases in flight.
// Called by operator.ts; starts nothing (operator.ts runs the record informers, the controllers run the rest).
import { chartName } from '../config/chart-dir.js';
import type { Controller } from '../controller/controller.js';
import { dependentRouter } from '../controller/event-handlers.js';
import { ShardedDependents } from '../dependents/sharded.js';
import { type Dependents, DependentWatcher } from '../dependents/watcher.js';
import type { HelmClient } from '../helm/types.js';
import { type ReleaseInformers, releaseInformers } from '../records/informers.js';
import { ValuesFromWatch } from '../references/values-from-watch.js';
import { Uninstaller } from '../uninstall/uninstaller.js';
import type { OperatorOptions } from './options.js';
import { processHelm } from './process-helm.js';
import { shardTerms } from './shard-terms.js';

export interface OperatorParts {
  /** What the operator was started with: each watch reads its settings from here. */
  readonly options: OperatorOptions;
  /** The helm client every reconciler runs, the process-wide middlewares around it (process-helm.ts). */
  readonly helm: HelmClient;
  /** Release history from a metadata-only cache of Helm's records, trusted once it shows what our own helm did. */
  readonly records: ReleaseInformers;
  /** Present when some watch has watchDependentResources. */
  readonly watcher: Dependents | undefined;
  /** Controllers by the `Kind.group` of their CRs: where dependent events are routed (each watch adds its own). */
  readonly routes: Map<string, Controller>;
  /** Reconciles the CRs whose values-from ConfigMaps and Secrets change (watches only the referenced ones). */
  readonly valuesFrom: ValuesFromWatch;
  /** Uninstalls without a helm process what it can (--in-process-uninstall). */
  readonly uninstaller: Uninstaller | undefined;
  /** Releases with a helm process running, shared by every reconciler. */
  readonly inFlight: Set<string>;
}

export function operatorParts(o: OperatorOptions, signal: AbortSignal): OperatorParts {
  const { kube, namespaces, clock, logger } = o;
  const routes = new Map<string, Controller>();
  const watching = o.watches.filter((w) => w.watchDependentResources);
  const shards = o.shards;
  // Sharding: each replica watches only the records and objects of the shards it holds, which carry the shard label
  // (helm --labels on the records, the post-renderer on the objects).
  const terms = shards && ((open: (shard: number, signal: AbortSignal) => void) => shardTerms({ shards, open }));
  const dependentWatcher = (s: AbortSignal, shard?: number) =>
    new DependentWatcher({
      kube,
      namespaces,
      charts: watching.map((w) => chartName(w.chart)),
      clock,
      logger: logger.child({ component: 'dependents', ...(shard === undefined ? {} : { shard }) }),
      signal: s,
      trigger: dependentRouter(routes, logger),
      shard,
    });
  const watcher: Dependents | undefined =
    watching.length === 0
      ? undefined
      : terms
        ? new ShardedDependents({ terms, signal, watcher: (shard, term) => dependentWatcher(term, shard) })
        : dependentWatcher(signal);
  if (watcher) o.onDependentWatcher?.(watcher);
  const records = releaseInformers({ kube, namespaces, clock, logger, shardTerms: terms });
  const helm = processHelm({ helm: o.helm.client, records: records.reader, middlewares: o.helm.middlewares });
  const inProcess = o.deletion.inProcessUninstall;
  const uninstaller =
    inProcess &&
    new Uninstaller({
      kube,
      helmMajor: inProcess.helmMajor,
      cachedRecords: (namespace, release) => records.reader.cachedRecords(namespace, release),
      observe: (namespace, release, outcome) => records.reader.observe(namespace, release, outcome),
    });
  const valuesFrom = new ValuesFromWatch({ kube, clock, logger, signal });
  return { options: o, helm, records, watcher, routes, valuesFrom, uninstaller, inFlight: new Set() };
}
