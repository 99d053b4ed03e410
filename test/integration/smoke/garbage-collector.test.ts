// Proves kube-controller-manager's garbage collector runs: a dependent with an ownerReference is deleted
// after its owner is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';

describe('the garbage collector', () => {
  let kube: TestKube;
  let ns: string;
  let deleteNs: () => Promise<void>;

  beforeAll(async () => {
    kube = testKube();
    [ns, deleteNs] = await createTestNamespace(kube, 'smoke-gc');
  });
  afterAll(async () => {
    await deleteNs?.();
  });

  it('deletes a ConfigMap whose owner ConfigMap was deleted', async () => {
    const owner = await kube.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'owner' }, data: { role: 'owner' } },
    });
    const uid = owner.metadata?.uid;
    expect(uid).toBeTruthy();
    await kube.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: uid ?? '' }],
        },
        data: { role: 'dependent' },
      },
    });
    await kube.core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns });

    await expect
      .poll(() => isGone(() => kube.core.readNamespacedConfigMap({ name: 'dependent', namespace: ns })), {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(true);
  });

  it('keeps a ConfigMap whose owner still exists', async () => {
    const owner = await kube.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'alive' } } });
    await kube.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'kept',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'alive', uid: owner.metadata?.uid ?? '' }],
        },
      },
    });
    // Deleting an unrelated object gives the collector a chance to act wrongly; the dependent must stay.
    await kube.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'unrelated' } } });
    await kube.core.deleteNamespacedConfigMap({ name: 'unrelated', namespace: ns });
    await expect
      .poll(() => isGone(() => kube.core.readNamespacedConfigMap({ name: 'unrelated', namespace: ns })))
      .toBe(true);
    const kept = await kube.core.readNamespacedConfigMap({ name: 'kept', namespace: ns });
    expect(kept.metadata?.ownerReferences?.[0]?.name).toBe('alive');
  });
});
