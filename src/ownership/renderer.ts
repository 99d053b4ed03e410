// The ownership post-render step: resolves the scope (namespaced or not) of every kind in a rendered manifest
// through discovery, then applies the ownership rules to each object. Called by the post-render server for each
// helm install/upgrade. Never logs or returns manifest text in errors.
import { splitManifest } from '../helm/manifest.js';
import { transformManifest } from '../helm/manifest-edit.js';
import { NotFoundError } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { KubeClient } from '../kube/types.js';
import { parseOwnershipArgs } from './context.js';
import type { PostRenderRequest } from './request.js';
import { applyOwnership } from './rules.js';

export function ownershipRenderer(kube: Pick<KubeClient, 'discover'>) {
  return async (req: PostRenderRequest, signal: AbortSignal): Promise<string> => {
    const ctx = parseOwnershipArgs(req.args);
    const scopes = new Map<string, boolean | undefined>();
    for (const obj of splitManifest(req.manifest)) {
      const id = `${obj.apiVersion} ${obj.kind}`;
      if (scopes.has(id)) continue;
      try {
        scopes.set(
          id,
          (await kube.discover({ ...parseApiVersion(obj.apiVersion), kind: obj.kind }, { signal })).namespaced,
        );
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        scopes.set(id, undefined);
      }
    }
    return transformManifest(req.manifest, (obj) =>
      applyOwnership(obj, ctx, (apiVersion, kind) => scopes.get(`${apiVersion} ${kind}`)),
    );
  };
}
