// A kube client for drift-repair unit tests: holds objects, records GETs, PATCHes (writes) and dry-run PATCHes,
// and answers a dry run with what an apply would store (roughly as SSA merges). Used by src/drift/*.test.ts.
// Test-only; never talks to a cluster.
import { NotFoundError } from '../../src/kube/errors.js';
import type { ApiResource, GroupVersionKind, KubeObject, PatchOptions, PatchType } from '../../src/kube/types.js';

export const RESOURCES: Record<string, ApiResource> = {
  '/v1/ConfigMap': { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  'apps/v1/Deployment': { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
  },
};

export interface PatchCall {
  res: ApiResource;
  namespace: string;
  name: string;
  body: Record<string, unknown>;
  type: PatchType;
  options: PatchOptions;
}

const keyOf = (plural: string, namespace: string, name: string) => `${plural}/${namespace}/${name}`;

/** Deep-merges an apply body into a stored object as SSA roughly does: maps merge, nulls are ignored, else replaced. */
function applyTo(stored: unknown, body: unknown): unknown {
  if (body === null || body === undefined) return stored;
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(body) || !isMap(stored)) return structuredClone(body);
  const out = { ...stored };
  for (const [k, v] of Object.entries(body)) out[k] = applyTo(stored[k], v);
  return out;
}

export interface FakeKubeOptions {
  /** Names objects whose PATCH fails (dry run or not). */
  readonly failPatch?: Record<string, Error>;
  /** Names objects whose dry-run PATCH fails. */
  readonly failDryRun?: Record<string, Error>;
  /** What the server (an admission webhook, say) does to every object it is asked to apply. @default nothing */
  readonly mutate?: (obj: KubeObject) => KubeObject;
}

/**
 * A kube client holding `objects`; GETs and PATCHes (writes) are recorded, and dry-run PATCHes apart from them:
 * a dry run answers what an apply would store (the stored object with the body merged in, then `mutate`d).
 */
export function fakeKube(objects: KubeObject[], failPatch: Record<string, Error> = {}, more: FakeKubeOptions = {}) {
  const store = new Map<string, KubeObject>();
  const resourceOf = (apiVersion: string, kind: string): ApiResource => {
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    const res = RESOURCES[`${group}/${version}/${kind}`];
    if (!res) throw new Error(`no resource for ${apiVersion} ${kind}`);
    return res;
  };
  for (const o of objects) {
    const res = resourceOf(o.apiVersion, o.kind);
    store.set(keyOf(res.plural, o.metadata.namespace ?? '', o.metadata.name ?? ''), o);
  }
  const gets: string[] = [];
  const discovered: string[] = [];
  const patches: PatchCall[] = [];
  const dryRuns: PatchCall[] = [];
  const mutate = more.mutate ?? ((obj: KubeObject) => obj);
  const kube = {
    async discover(gvk: GroupVersionKind, { signal }: { signal: AbortSignal }): Promise<ApiResource> {
      signal.throwIfAborted();
      discovered.push(`${gvk.group}/${gvk.version}/${gvk.kind}`);
      const res = RESOURCES[`${gvk.group}/${gvk.version}/${gvk.kind}`];
      if (!res) throw new NotFoundError({ status: 404, serverMessage: `no kind ${gvk.kind} in ${gvk.group}` });
      return res;
    },
    async get(res: ApiResource, namespace: string, name: string, { signal }: { signal: AbortSignal }) {
      signal.throwIfAborted();
      const key = keyOf(res.plural, namespace, name);
      gets.push(key);
      const obj = store.get(key);
      if (!obj) throw new NotFoundError({ status: 404, operation: `GET ${key}` });
      return structuredClone(obj);
    },
    async patch(
      res: ApiResource,
      namespace: string,
      name: string,
      body: unknown,
      type: PatchType,
      options: PatchOptions,
    ): Promise<KubeObject> {
      options.signal.throwIfAborted();
      const call = { res, namespace, name, body: body as Record<string, unknown>, type, options };
      if (options.dryRun === true) {
        dryRuns.push(call);
        const failure = more.failDryRun?.[name] ?? failPatch[name];
        if (failure) throw failure;
        const stored = store.get(keyOf(res.plural, namespace, name));
        return mutate(applyTo(structuredClone(stored), body) as KubeObject);
      }
      patches.push(call);
      const failure = failPatch[name];
      if (failure) throw failure;
      return body as KubeObject;
    },
  };
  return { kube, gets, patches, dryRuns, discovered, store };
}
