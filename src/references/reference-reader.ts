// The reconciler's reference reader over the API: one GET per ConfigMap or Secret a values-from annotation names (a
// NotFound is "none"), fresh on every call. Built by the manager for each watch's reconciler (manager/reconciler.ts);
// keeps nothing it read and never logs it.
import { REFERENCE_RESOURCES } from '../config/values-from.js';
import { unlessNotFound } from '../kube/errors.js';
import type { KubeClient } from '../kube/types.js';
import type { ReferenceReader } from '../reconciler/types.js';

/** A ReferenceReader over the API: one GET per object (a NotFound is "none"). */
export function referenceReader(kube: Pick<KubeClient, 'get'>): ReferenceReader {
  return {
    async get(kind, namespace, name, { signal }) {
      const obj = await unlessNotFound(kube.get(REFERENCE_RESOURCES[kind], namespace, name, { signal }));
      return obj && { data: obj.data };
    },
  };
}
