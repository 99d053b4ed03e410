// Adapts the raw KubeClient to the reconciler's ports: CR access (get, finalizers, status) for one watched
// resource, and Helm's release history read from its Secrets. Built by the manager (and the cleanup command).
// Never caches Secrets (Helm records are large; caching them all is the classic operator OOM).

import { releaseFromSecret } from '../helm/release.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import type { CrAccess, CustomResource, ReleaseReader, StoredRelease } from './types.js';

const SECRETS: ApiResource = { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };

/** Field manager recorded for the operator's writes. */
export const FIELD_MANAGER = 'helm-operator';

function asCr(obj: KubeObject): CustomResource {
  return obj as unknown as CustomResource;
}
function asObj(cr: CustomResource): KubeObject {
  return cr as unknown as KubeObject;
}

/** CR access by direct API reads: every reconcile sees the latest object, so writes rarely conflict. */
export function crAccess(kube: KubeClient, res: ApiResource): CrAccess {
  return {
    async get(namespace, name, { signal }) {
      try {
        return asCr(await kube.get(res, namespace, name, { signal }));
      } catch (err) {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }
    },
    async setFinalizers(cr, finalizers, { signal }) {
      // The resourceVersion makes the merge patch conditional, so a concurrent change is never overwritten.
      const patch = { metadata: { finalizers, resourceVersion: cr.metadata.resourceVersion } };
      try {
        const ns = cr.metadata.namespace ?? '';
        return asCr(
          await kube.patch(res, ns, cr.metadata.name, patch, 'merge', { signal, fieldManager: FIELD_MANAGER }),
        );
      } catch (err) {
        // Removing the last finalizer of a deleted object may race with its disappearance.
        if (err instanceof NotFoundError && finalizers.length === 0) return cr;
        throw err;
      }
    },
    async writeStatus(cr, status, { signal }) {
      const obj = { ...asObj(cr), status };
      return asCr(await kube.updateStatus(res, obj, { signal, fieldManager: FIELD_MANAGER }));
    },
  };
}

/** Release history from the release namespace's Secrets labelled owner=helm,name=<release>. */
export function releaseReader(kube: KubeClient): ReleaseReader {
  return {
    async history(namespace, release, { signal }): Promise<StoredRelease[]> {
      const list = await kube.list(SECRETS, { namespace, labelSelector: `owner=helm,name=${release}`, signal });
      return list.items.map((s) => ({ release: releaseFromSecret(s), labels: s.metadata.labels ?? {} }));
    },
  };
}
