// A list/watch client whose objects lose metadata.managedFields before an informer stores them (controller-runtime's
// cache.TransformStripManagedFields): often the largest part of a small object, and nothing here reads it (a
// write of a stripped copy leaves the server's managedFields as they are). Used by the manager's and the dependent
// watcher's informers; never changes anything else of an object.
import type { KubeClient, KubeObject, WatchEvent } from '../kube/types.js';

export type ListWatch = Pick<KubeClient, 'list' | 'watch'>;

/** `client`, with each listed and watched object passed through `transform` (default: managedFields removed). */
export function transformingClient(
  client: ListWatch,
  transform: (obj: KubeObject) => KubeObject = stripManagedFields,
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
