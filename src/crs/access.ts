// Adapts the raw KubeClient to the reconciler's CR port: get (from the informer's cache when it has the CR), finalizers
// and status for one watched resource (reconciler/types.ts' CrAccess). Built by the manager (manager/reconciler.ts);
// never caches anything itself.

import { NotFoundError, unlessNotFound } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import type { CrAccess, CustomResource } from '../reconciler/types.js';

/** Field manager recorded for the operator's writes. */
export const FIELD_MANAGER = 'helm-operator';

function asCr(obj: KubeObject): CustomResource {
  return obj as unknown as CustomResource;
}
function asObj(cr: CustomResource): KubeObject {
  return cr as unknown as KubeObject;
}

export interface CrAccessOptions {
  /**
   * The informers' copies of the CRs (controller-runtime's cached client): a reconcile then costs no GET. A write
   * based on a copy that lags fails with a conflict, and the updater re-reads with latest(). Once the informer
   * covering a namespace has listed, a CR it does not hold is gone (every key comes from its events or from an
   * object it held), and no GET is sent to learn that. @default none: always GET
   */
  readonly cache?: CrCache | undefined;
}

/** The informers' copies of one watched kind (cache/informer-set.ts' InformerSet). */
export interface CrCache {
  get(namespace: string, name: string): KubeObject | undefined;
  synced(namespace: string): boolean;
}

/**
 * CR access: reads from the informer's cache when given one (a GET only before it has synced), writes to the API
 * server with the read copy's resourceVersion.
 */
export function crAccess(kube: KubeClient, res: ApiResource, options: CrAccessOptions = {}): CrAccess {
  const latest = async (namespace: string, name: string, signal: AbortSignal) => {
    const obj = await unlessNotFound(kube.get(res, namespace, name, { signal }));
    return obj && asCr(obj);
  };
  return {
    async get(namespace, name, { signal }) {
      const cached = options.cache?.get(namespace, name);
      if (cached) return asCr(cached);
      return options.cache?.synced(namespace) ? undefined : latest(namespace, name, signal);
    },
    latest: (namespace, name, { signal }) => latest(namespace, name, signal),
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
