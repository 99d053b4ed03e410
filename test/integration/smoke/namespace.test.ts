// Proves kube-controller-manager's namespace controller runs: deleting a namespace that holds objects finishes
// instead of staying Terminating.
import { describe, expect, it } from 'vitest';
import { createTestNamespace, isGone, testKube } from '../../support/kube.js';

describe('deleting a namespace', () => {
  it('empties it and finishes', async () => {
    const kube = testKube();
    const [ns, deleteNs] = await createTestNamespace(kube, 'smoke-ns');
    try {
      await kube.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'content' } } });
      await kube.core.createNamespacedSecret({
        namespace: ns,
        body: { metadata: { name: 'content' }, stringData: { k: 'v' } },
      });
      await kube.core.deleteNamespace({ name: ns });
      await expect
        .poll(() => isGone(() => kube.core.readNamespace({ name: ns })), { timeout: 60_000, interval: 250 })
        .toBe(true);
    } finally {
      await deleteNs();
    }
  });
});
