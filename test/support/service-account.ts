// A kubeconfig that authenticates as a ServiceAccount of the test cluster (a real bound token), and a ClusterRole of
// the test's own bound to it: to run the operator with exactly the permissions of a Role under test. Test-only.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { isNotFound, type TestKube } from './kube.js';

/** Creates ServiceAccount `name` in `namespace` and writes a kubeconfig for it into `dir`; returns its path. */
export async function serviceAccountKubeconfig(kube: TestKube, namespace: string, name: string, dir: string) {
  await kube.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const token = await kube.core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const admin = new KubeConfig();
  admin.loadFromFile(kube.kubeconfig);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the test kubeconfig has no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: token.status?.token ?? '' }],
    contexts: [{ name, cluster: cluster.name, user: name }],
    currentContext: name,
  });
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
  return file;
}

/**
 * Creates ClusterRole `role` with no rules (the test grants them with replaceClusterRole) bound to ServiceAccount
 * `serviceAccount` of `namespace`, and that account with its kubeconfig in `dir`; returns the kubeconfig's path. Each
 * object's deletion is pushed onto `cleanups`.
 */
export async function boundServiceAccount(
  kube: TestKube,
  p: { readonly role: string; readonly namespace: string; readonly serviceAccount: string; readonly dir: string },
  cleanups: (() => Promise<unknown>)[],
): Promise<string> {
  await kube.rbac.createClusterRole({ body: { metadata: { name: p.role }, rules: [] } });
  cleanups.push(() =>
    kube.rbac
      .deleteClusterRole({ name: p.role })
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e))),
  );
  await kube.rbac.createClusterRoleBinding({
    body: {
      metadata: { name: p.role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: p.role },
      subjects: [{ kind: 'ServiceAccount', name: p.serviceAccount, namespace: p.namespace }],
    },
  });
  cleanups.push(() => kube.rbac.deleteClusterRoleBinding({ name: p.role }).catch(() => undefined));
  return serviceAccountKubeconfig(kube, p.namespace, p.serviceAccount, p.dir);
}
