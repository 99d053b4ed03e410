// A tiny in-memory API server for unit tests of code that discovers, reads and deletes objects: discovery from a
// list of served kinds, objects in memory, DELETE honouring finalizers, injectable failures, and a record of every
// call. Test-only; methods other than discover/get/delete reject.
import { NotFoundError } from '../../src/kube/errors.js';
import type {
  ApiResource,
  DeleteOptions,
  GroupVersionKind,
  KubeClient,
  KubeObject,
  RequestOptions,
} from '../../src/kube/types.js';

/** The kinds served unless a test names others. */
export const SERVED: ApiResource[] = [
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
];

const unused = (): Promise<never> => Promise.reject(new Error('cleanupRelease must only discover, get and delete'));
const notFound = (what: string) => new NotFoundError({ status: 404, serverMessage: `${what} not found` });

/** A tiny API server: discovery from RESOURCES, objects in memory, DELETE honouring finalizers. */
export class ObjectServerFake implements KubeClient {
  readonly #served: readonly ApiResource[];

  constructor(served: readonly ApiResource[] = SERVED) {
    this.#served = served;
  }

  readonly objects = new Map<string, KubeObject>();
  readonly discoverCalls: GroupVersionKind[] = [];
  readonly getCalls: string[] = [];
  readonly deleteCalls: Array<{ key: string; propagationPolicy: DeleteOptions['propagationPolicy'] }> = [];
  readonly failures = new Map<string, Error>();
  /** Keys of objects that something else deletes right after their next GET. */
  readonly vanishing = new Set<string>();

  add(res: ApiResource, namespace: string, name: string, metadata: KubeObject['metadata'] = {}): void {
    const apiVersion = res.group === '' ? res.version : `${res.group}/${res.version}`;
    const meta = { ...metadata, name, ...(res.namespaced ? { namespace } : {}) };
    this.objects.set(key(res, namespace, name), { apiVersion, kind: res.kind, metadata: meta });
  }

  discover(gvk: GroupVersionKind): Promise<ApiResource> {
    this.discoverCalls.push(gvk);
    const failure = this.failures.get(`discover ${gvk.kind}`);
    if (failure !== undefined) return Promise.reject(failure);
    const res = this.#served.find((r) => r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind);
    return res === undefined ? Promise.reject(notFound(`kind ${gvk.kind}`)) : Promise.resolve(res);
  }

  async get(res: ApiResource, namespace: string, name: string, options: RequestOptions): Promise<KubeObject> {
    options.signal.throwIfAborted();
    const k = key(res, namespace, name);
    this.getCalls.push(k);
    const failure = this.failures.get(`get ${k}`);
    if (failure !== undefined) throw failure;
    const obj = this.objects.get(k);
    if (obj === undefined) throw notFound(k);
    if (this.vanishing.delete(k)) this.objects.delete(k);
    return obj;
  }

  async delete(res: ApiResource, namespace: string, name: string, options: DeleteOptions): Promise<void> {
    const k = key(res, namespace, name);
    this.deleteCalls.push({ key: k, propagationPolicy: options.propagationPolicy });
    const failure = this.failures.get(`delete ${k}`);
    if (failure !== undefined) throw failure;
    const obj = this.objects.get(k);
    if (obj === undefined) throw notFound(k);
    if ((obj.metadata.finalizers ?? []).length === 0) this.objects.delete(k);
    else obj.metadata.deletionTimestamp ??= '2024-01-01T00:00:00Z';
  }

  list = unused;
  create = unused;
  update = unused;
  updateStatus = unused;
  patch = unused;
  watch = unused;
  serverVersion = unused;
}

export function key(res: ApiResource, namespace: string, name: string): string {
  return res.namespaced ? `${res.plural}/${namespace}/${name}` : `${res.plural}/${name}`;
}
