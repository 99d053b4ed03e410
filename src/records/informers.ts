// The release-record cache of the running operator: one metadata-only informer per watched namespace on Secrets
// labelled owner=helm (only name, namespace, uid, resourceVersion and labels are kept), indexed by release, behind
// records/cached-reader.ts' CachedReleaseReader. Built by manager/process.ts, started by runOperator; never holds Secret data.
import { Informer } from '../cache/informer.js';
import { type ListWatch, transformingClient } from '../cache/strip.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { KubeClient, KubeObject } from '../kube/types.js';
import { ReleaseCache } from './cache.js';
import { CachedReleaseReader, type ReleaseRecordView } from './cached-reader.js';
import { releaseReader, SECRETS } from './reader.js';

export interface ReleaseInformersOptions {
  readonly kube: KubeClient;
  /** '' means all namespaces. */
  readonly namespaces: readonly string[];
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface ReleaseInformers {
  readonly reader: CachedReleaseReader;
  /** The decoded records held (records/cache.ts' stats). */
  cacheStats(): { readonly records: number; readonly chars: number };
  /** Runs the informers until aborted. */
  run(signal: AbortSignal): Promise<void>;
}

export function releaseInformers(o: ReleaseInformersOptions): ReleaseInformers {
  const byNamespace = new Map<string, Informer>();
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
  for (const namespace of o.namespaces) {
    const informer = new Informer({
      client,
      resource: SECRETS,
      namespace,
      labelSelector: 'owner=helm',
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
    byNamespace.set(namespace, informer);
  }
  const informerOf = (namespace: string) => byNamespace.get(namespace) ?? byNamespace.get('');
  const view: ReleaseRecordView = {
    synced: (namespace) => informerOf(namespace)?.hasSynced() ?? false,
    records: (namespace, release) => [...(index.get(`${namespace}/${release}`)?.values() ?? [])],
  };
  const reader = new CachedReleaseReader({ kube: o.kube, view, listed: releaseReader(o.kube, cache), cache });
  return {
    reader,
    cacheStats: () => cache.stats(),
    async run(signal) {
      await Promise.all([...byNamespace.values()].map((i) => i.start(signal)));
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
