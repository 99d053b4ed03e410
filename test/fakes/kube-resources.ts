// The resources and object builders shared by the kube fakes and their tests: common served kinds, the store key
// of an object, and ConfigMap/list-page builders for informer tests.
// Test-only; pure functions and constants.
import type { ApiResource, KubeObject, ListResult } from '../../src/kube/types.js';

const res = (group: string, version: string, kind: string, plural: string, namespaced = true): ApiResource => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

export const configMaps = res('', 'v1', 'ConfigMap', 'configmaps');
export const secrets = res('', 'v1', 'Secret', 'secrets');
export const serviceAccounts = res('', 'v1', 'ServiceAccount', 'serviceaccounts');
export const namespaces = res('', 'v1', 'Namespace', 'namespaces', false);
export const events = res('', 'v1', 'Event', 'events');
export const deployments = res('apps', 'v1', 'Deployment', 'deployments');
export const leases = res('coordination.k8s.io', 'v1', 'Lease', 'leases');
export const clusterRoles = res('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false);
export const roles = res('rbac.authorization.k8s.io', 'v1', 'Role', 'roles');

/** What FakeKubeApi serves unless a test names its own kinds. */
export const COMMON_RESOURCES: readonly ApiResource[] = [
  configMaps,
  secrets,
  serviceAccounts,
  namespaces,
  events,
  deployments,
  leases,
  clusterRoles,
  roles,
];

/** The store key: `plural/namespace/name`, or `plural/name` for a cluster-scoped kind. */
export function keyOf(r: ApiResource, namespace: string, name: string): string {
  return r.namespaced ? `${r.plural}/${namespace}/${name}` : `${r.plural}/${name}`;
}

/** The served resource of an object's apiVersion and kind (else a guessed lower-case plural, namespaced). */
export function resourceFor(served: readonly ApiResource[], obj: KubeObject): ApiResource {
  const slash = obj.apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : obj.apiVersion.slice(0, slash);
  const version = obj.apiVersion.slice(slash + 1);
  const found = served.find((r) => r.group === group && r.version === version && r.kind === obj.kind);
  return found ?? res(group, version, obj.kind, `${obj.kind.toLowerCase()}s`);
}

/** A ConfigMap with the given name and resourceVersion (namespace `default` unless given). */
export function configMap(name: string, resourceVersion: string, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    ...extra,
    metadata: { name, namespace: 'default', resourceVersion, ...extra.metadata },
  };
}

/** One LIST answer for FakeKubeApi.enqueueList. */
export function page(items: KubeObject[], resourceVersion: string, next?: string): ListResult {
  return { items, resourceVersion, ...(next === undefined ? {} : { continue: next }) };
}
