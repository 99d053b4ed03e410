// The release-record cache of the running operator: one metadata-only informer per watched namespace on Secrets
// labelled owner=helm (with sharding, one per namespace and shard held, selecting that shard's label; only name,
// namespace, uid, resourceVersion and labels are kept), indexed by release, behind records/cached-reader.ts'
// CachedReleaseReader. Built by manager/process.ts, started by runOperator; never holds Secret data.
import { Informer } from '../cache/informer.js';
import { type ListWatch, transformingClient } from '../cache/strip.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { KubeClient, KubeObject } from '../kube/types.js';
import { shardSelector } from '../leader/shard-label.js';
import { ReleaseCache } from './cache.js';
import { CachedReleaseReader, type ReleaseRecordView } from './cached-reader.js';
import { releaseReader, SECRETS } from './reader.js';

export interface ReleaseInformersOptions {
  readonly kube: KubeClient;
  /** '' means all namespaces. */
  readonly namespaces: readonly string[];
  /**
   * Sharding: the terms of the shards held (manager/shard-terms.ts). The records of shard K (labelled with it, as
   * `helm --labels` writes them) are watched only during K's term, and dropped when it ends; a release first read
   * in this process is then LISTed, since its older records may not carry the label. @default every record, always
   */
  readonly shardTerms?: ((open: (shard: number, signal: AbortSignal) => void) => ShardTermsRunner) | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What a shard-terms runner is to the record informers: started with the run's signal. */
export interface ShardTermsRunner {
  start(signal: AbortSignal): void;
}

export interface ReleaseInformers {
  readonly reader: CachedReleaseReader;
  /** The decoded records held (records/cache.ts' stats). */
  cacheStats(): { readonly records: number; readonly chars: number };
  /** Runs the informers until aborted. */
  run(signal: AbortSignal): Promise<void>;
}

export function releaseInformers(o: ReleaseInformersOptions): ReleaseInformers {
  /** The running informers of each namespace scope (one per shard held when sharding, else one). */
  const byNamespace = new Map<string, Set<Informer>>();
  /** `namespace/release` → the records' metadata by Secret uid. */
  const index = new Map<string, Map<string, KubeObject>>();
  const releaseOf = (obj: KubeObject) => `${obj.metadata.namespace ?? ''}/${obj.metadata.labels?.name ?? ''}`;
  const put = (obj: KubeObject) => {
    const records = index.get(releaseOf(obj)) ?? new Map<string, KubeObject>();
    index.set(releaseOf(obj), records.set(obj.metadata.uid ?? '', obj));
  };
  const cache = new ReleaseCache();
  const remove = (obj: KubeObject) => {
    const records = index.get(releaseOf(obj));
    records?.delete(obj.metadata.uid ?? '');
    if (records?.size !== 0) return;
    index.delete(releaseOf(obj));
    cache.forgetRelease(releaseOf(obj)); // the release is gone: its pooled manifest too
  };
  const client = metadataClient(o.kube);
  const running = new Set<Promise<void>>();
  /** Watches `selector` in `namespace` until `signal` aborts; then forgets what it held. */
  const watchScope = (namespace: string, selector: string, signal: AbortSignal) => {
    const informer = new Informer({
      client,
      resource: SECRETS,
      namespace,
      labelSelector: selector,
      clock: o.clock,
      onEvent: (e) => {
        if (e.type === 'error') o.logger.warn({ namespace, phase: e.phase, err: errFields(e.error) }, 'Watch error');
        else if (e.type === 'list') o.logger.debug({ kind: 'Secret', namespace, items: e.items }, 'Informer listed');
      },
    });
    informer.addEventHandler({
      onAdd: put,
      onUpdate: (old, obj) => {
        if (releaseOf(old) !== releaseOf(obj)) remove(old);
        put(obj);
      },
      // A deleted record (uninstalled, or pruned by --history-max) is never read again: its decoded copy goes too.
      onDelete: (obj) => {
        remove(obj);
        cache.forget(obj.metadata.uid ?? '');
      },
    });
    const scope = byNamespace.get(namespace) ?? new Set<Informer>();
    byNamespace.set(namespace, scope.add(informer));
    const run = informer.start(signal).finally(() => {
      running.delete(run);
      scope.delete(informer);
      // A shard given back: its records are another replica's now (at shutdown, nothing is read again either).
      for (const obj of informer.list()) {
        remove(obj);
        cache.forget(obj.metadata.uid ?? '');
      }
    });
    running.add(run);
  };
  const informersOf = (namespace: string) => byNamespace.get(namespace) ?? byNamespace.get('');
  const view: ReleaseRecordView = {
    synced: (namespace) => {
      const scope = informersOf(namespace);
      return scope !== undefined && scope.size > 0 && [...scope].every((i) => i.hasSynced());
    },
    records: (namespace, release) => [...(index.get(`${namespace}/${release}`)?.values() ?? [])],
  };
  const sharded = o.shardTerms !== undefined;
  const reader = new CachedReleaseReader({
    kube: o.kube,
    view,
    listed: releaseReader(o.kube, cache),
    cache,
    trustUnseen: !sharded,
  });
  return {
    reader,
    cacheStats: () => cache.stats(),
    async run(signal) {
      if (o.shardTerms) {
        const open = (shard: number, term: AbortSignal) => {
          for (const ns of o.namespaces) watchScope(ns, `owner=helm,${shardSelector(undefined, shard)}`, term);
        };
        o.shardTerms(open).start(signal);
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } else {
        for (const ns of o.namespaces) watchScope(ns, 'owner=helm', signal);
      }
      // Terms opened later add to `running`: wait until every informer has stopped.
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

/** list and watch as PartialObjectMetadata, keeping only what the reader needs (no managedFields, annotations). */
function metadataClient(kube: KubeClient): ListWatch {
  const metadataOnly: ListWatch = {
    list: (res, options) => kube.list(res, { ...options, metadataOnly: true }),
    watch: (res, options, onEvent, signal) => kube.watch(res, { ...options, metadataOnly: true }, onEvent, signal),
  };
  return transformingClient(metadataOnly, slim);
}

function slim(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion, labels } = obj.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(uid === undefined ? {} : { uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
      ...(labels === undefined ? {} : { labels }),
    },
  };
}
