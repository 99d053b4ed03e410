// Kubernetes access for integration tests: typed clients for the run's cluster, fresh namespaces that clean up
// after themselves, and NotFound detection. Test-only; the operator talks to the API through its own wrapper.
import { randomBytes } from 'node:crypto';
import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { expect, inject, vi } from 'vitest';

export interface TestKube {
  readonly kubeconfig: string;
  /** The API server's URL, from the kubeconfig's current cluster. */
  readonly server: string;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly batch: BatchV1Api;
  readonly apiext: ApiextensionsV1Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
  readonly rbac: RbacAuthorizationV1Api;
}

export function testKube(): TestKube {
  const { kubeconfig } = inject('cluster');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return {
    kubeconfig,
    server: kc.getCurrentCluster()?.server ?? '',
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    apiext: kc.makeApiClient(ApiextensionsV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    coordination: kc.makeApiClient(CoordinationV1Api),
    rbac: kc.makeApiClient(RbacAuthorizationV1Api),
  };
}

/** A DNS-1123 name that is unique per call: `prefix-<8 hex>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

/** Resolves true once `read` throws NotFound; rethrows any other error. For use inside expect.poll. */
export async function isGone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** Creates a fresh namespace; the returned function deletes it (and does not wait for it to finish). */
export async function createTestNamespace(kube: TestKube, prefix: string): Promise<[string, () => Promise<void>]> {
  const name = uniqueName(prefix);
  await kube.core.createNamespace({ body: { metadata: { name, labels: { 'helm-operator-ts/test': 'true' } } } });
  return [
    name,
    async () => {
      try {
        await kube.core.deleteNamespace({ name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  ];
}

/**
 * Waits until the deployment controller is done with a Deployment's status and so with its resourceVersion: the
 * current generation observed, `replicas` pods counted, and ready and available too when the cluster has `nodes` to
 * run them. A Deployment just (re)created has no status yet; that is not settled, its first status write is coming.
 */
export async function deploymentSettled(
  kube: TestKube,
  at: { readonly namespace: string; readonly name: string },
  replicas: number,
  nodes: number,
): Promise<void> {
  await vi.waitFor(
    async () => {
      const d = await kube.apps.readNamespacedDeployment(at);
      expect(d.spec?.replicas).toBe(replicas);
      expect(d.status?.observedGeneration).toBe(d.metadata?.generation);
      expect([d.status?.replicas, d.status?.updatedReplicas]).toEqual([replicas, replicas]);
      if (nodes > 0) expect([d.status?.readyReplicas, d.status?.availableReplicas]).toEqual([replicas, replicas]);
    },
    { timeout: 60_000, interval: 250 },
  );
}
