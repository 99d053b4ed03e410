// A list/watch client whose objects lose metadata.managedFields before an informer stores them (controller-runtime's
// cache.TransformStripManagedFields): often the largest part of a small object, and nothing here reads it (a
// write of a stripped copy leaves the server's managedFields as they are). A CR's status.deployedRelease.manifest is
// swapped for the process's one copy of that equal text (cache/manifest-pool.ts). Used by the manager's and the
// dependent watcher's informers; never changes anything else of an object, nor any value.
import type { KubeClient, KubeObject, WatchEvent } from '../kube/types.js';
import { type ManifestPool, processManifestPool } from './manifest-pool.js';

export type ListWatch = Pick<KubeClient, 'list' | 'watch'>;

/** `client`, with each listed and watched object passed through `transform` (default: managedFields removed). */
export function transformingClient(
  client: ListWatch,
  transform: (obj: KubeObject) => KubeObject = (obj) => shareStatusManifest(stripManagedFields(obj)),
): ListWatch {
  return {
    async list(res, options) {
      const result = await client.list(res, options);
      return { ...result, items: result.items.map(transform) };
    },
    watch(res, options, onEvent, signal) {
      const each = (e: WatchEvent) => onEvent(e.type === 'ERROR' ? e : { type: e.type, object: transform(e.object) });
      return client.watch(res, options, each, signal);
    },
  };
}

/** The object without metadata.managedFields (the same object when it has none). */
export function stripManagedFields(obj: KubeObject): KubeObject {
  if (!('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * The object with its status.deployedRelease.manifest replaced by the pool's equal copy (the same object when it
 * shows none): the decoded release record holds the same text, and one copy is enough.
 */
export function shareStatusManifest(obj: KubeObject, pool: ManifestPool = processManifestPool): KubeObject {
  const status = (obj as { status?: unknown }).status;
  if (typeof status !== 'object' || status === null || !('deployedRelease' in status)) return obj;
  const rel = status.deployedRelease as { name?: unknown; manifest?: unknown } | null;
  if (typeof rel?.name !== 'string' || typeof rel.manifest !== 'string' || rel.manifest === '') return obj;
  const manifest = pool.share(`${obj.metadata.namespace ?? ''}/${rel.name}`, rel.manifest);
  return { ...obj, status: { ...status, deployedRelease: { ...rel, manifest } } } as KubeObject;
}
