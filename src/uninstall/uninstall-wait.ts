// operator-sdk's CleanupRelease for the `uninstall-wait` annotation: which objects of an uninstalled release's
// manifest still exist, re-deleting them while they do. Wired as the reconciler's `cleanup` option by
// manager/reconciler.ts, which reconciler/deletion/deletion.ts runs on every uninstall-wait pass. Never deletes an
// object Helm's uninstall leaves alone (resource-policy), and never logs manifest content.
import type { Logger } from '../core/logger.js';
import { helmUninstallSkips, type ManifestObject, splitManifest } from '../helm/manifest.js';
import { NotFoundError, unlessNotFound } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient } from '../kube/types.js';

export interface CleanupReleaseOptions {
  readonly kube: KubeClient;
  /** `status.deployedRelease.manifest`: the release manifest as Helm rendered it. */
  readonly manifest: string;
  /** The release namespace: the namespace of namespaced objects whose manifest sets none. */
  readonly namespace: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
}

/** An object of the release, as the server addresses it. `namespace` is absent for cluster-scoped objects. */
export interface ReleaseObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export interface CleanupResult {
  /** Objects that still exist after this pass (Terminating ones included), in manifest order. Empty: all gone. */
  readonly remaining: ReleaseObjectRef[];
}

interface Located {
  readonly ref: ReleaseObjectRef;
  readonly res: ApiResource;
}

/**
 * Checks every object of the manifest except those Helm's uninstall skips (any `helm.sh/resource-policy`
 * annotation, see helmUninstallSkips). An object is gone when its GET is NotFound or the server no longer serves
 * its kind. If any object still exists, each existing one gets a DELETE (Background propagation) again, as
 * operator-sdk does, and is read once more: what still exists after that, including objects that are Terminating
 * behind a finalizer, is `remaining`. Errors other than NotFound (and ManifestParseError) propagate.
 */
export async function cleanupRelease(options: CleanupReleaseOptions): Promise<CleanupResult> {
  const { kube, signal, logger } = options;
  signal.throwIfAborted();
  const objects = splitManifest(options.manifest).filter((obj) => !helmUninstallSkips(obj));
  const resources = new Map<string, ApiResource | null>();
  const seen = new Set<string>();
  const existing: Located[] = [];

  for (const obj of objects) {
    const res = await resolve(kube, resources, obj, signal, logger);
    if (res === null) continue;
    const ref = refOf(obj, res, options.namespace);
    const key = `${res.group}/${res.kind}/${ref.namespace ?? ''}/${ref.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (await exists(kube, res, ref, signal)) existing.push({ ref, res });
  }
  if (existing.length === 0) return { remaining: [] };

  for (const { ref, res } of existing) {
    logger.debug({ ...ref }, 'Deleting release object that still exists');
    await unlessNotFound(kube.delete(res, ref.namespace ?? '', ref.name, { signal, propagationPolicy: 'Background' }));
  }
  const remaining: ReleaseObjectRef[] = [];
  for (const { ref, res } of existing) {
    if (await exists(kube, res, ref, signal)) remaining.push(ref);
  }
  return { remaining };
}

/** The object's REST resource, or null when the server does not serve its kind (then the object is gone). */
async function resolve(
  kube: KubeClient,
  cache: Map<string, ApiResource | null>,
  obj: ManifestObject,
  signal: AbortSignal,
  logger: Logger,
): Promise<ApiResource | null> {
  const key = `${obj.apiVersion} ${obj.kind}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let res: ApiResource | null;
  try {
    res = await kube.discover({ ...parseApiVersion(obj.apiVersion), kind: obj.kind }, { signal });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    logger.debug({ apiVersion: obj.apiVersion, kind: obj.kind }, 'Kind no longer served; its objects count as gone');
    res = null;
  }
  cache.set(key, res);
  return res;
}

function refOf(obj: ManifestObject, res: ApiResource, releaseNamespace: string): ReleaseObjectRef {
  const base = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name };
  return res.namespaced ? { ...base, namespace: obj.metadata.namespace ?? releaseNamespace } : base;
}

async function exists(
  kube: KubeClient,
  res: ApiResource,
  ref: ReleaseObjectRef,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await kube.get(res, ref.namespace ?? '', ref.name, { signal });
    return true;
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
}
