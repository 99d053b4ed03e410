// A kubeconfig that authenticates as a ServiceAccount of the test cluster (a real bound token): to run the operator
// with exactly the permissions of a Role under test. Test-only.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { TestKube } from './kube.js';

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
