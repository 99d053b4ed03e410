// Proves cleanupRelease (the uninstall-wait check) against a real API server: objects without finalizers are
// deleted and stop counting, an object held by a finalizer is Terminating and keeps counting as remaining until
// the finalizer goes, and a manifest object that never existed counts as gone.
import { beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/logger.js';
import { createKubeClient } from '../../../src/kube/client.js';
import { NotFoundError } from '../../../src/kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../../../src/kube/types.js';
import { cleanupRelease } from '../../../src/uninstall/uninstall-wait.js';
import { createTestNamespace, type TestKube, testKube } from '../../support/kube.js';

const signal = new AbortController().signal;
const poll = { timeout: 30_000, interval: 200 };
const HOLD = 'example.com/hold';

/** The release manifest as Helm renders it: `---` separators and a `# Source:` comment per template. */
function renderedManifest(): string {
  return [
    '---',
    '# Source: demo/templates/serviceaccount.yaml',
    'apiVersion: v1',
    'kind: ServiceAccount',
    'metadata:',
    '  name: demo',
    '  labels:',
    '    app.kubernetes.io/name: demo',
    '---',
    '# Source: demo/templates/blocked.yaml',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: blocked',
    'data:',
    '  key: value',
    '---',
    '# Source: demo/templates/free.yaml',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: free',
    'data:',
    '  key: value',
    '---',
    '# Source: demo/templates/never.yaml',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: never-existed',
    '',
  ].join('\n');
}

describe('cleanupRelease against the test cluster', () => {
  let kube: TestKube;
  let client: KubeClient;
  let configMaps: ApiResource;
  let serviceAccounts: ApiResource;

  beforeAll(async () => {
    kube = testKube();
    client = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig } }).client;
    configMaps = await client.discover({ group: '', version: 'v1', kind: 'ConfigMap' }, { signal });
    serviceAccounts = await client.discover({ group: '', version: 'v1', kind: 'ServiceAccount' }, { signal });
  });

  const obj = (ns: string, kind: string, name: string, metadata: KubeObject['metadata'] = {}): KubeObject => ({
    apiVersion: 'v1',
    kind,
    metadata: { ...metadata, name, namespace: ns },
  });

  const exists = (res: ApiResource, ns: string, name: string): Promise<boolean> =>
    client.get(res, ns, name, { signal }).then(
      () => true,
      (err: unknown) => {
        if (err instanceof NotFoundError) return false;
        throw err;
      },
    );

  it('deletes what it can, reports the finalizer-held object until the finalizer goes, then reports nothing', async () => {
    const [ns, deleteNs] = await createTestNamespace(kube, 'cleanup');
    const cleanup = () =>
      cleanupRelease({ kube: client, manifest: renderedManifest(), namespace: ns, signal, logger: silentLogger });
    const blockedRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'blocked' };
    try {
      await client.create(configMaps, obj(ns, 'ConfigMap', 'blocked', { finalizers: [HOLD] }), { signal });
      await client.create(configMaps, obj(ns, 'ConfigMap', 'free'), { signal });
      await client.create(serviceAccounts, obj(ns, 'ServiceAccount', 'demo'), { signal });

      const first = await cleanup();
      expect(first.remaining).toEqual([blockedRef]);
      expect(await exists(configMaps, ns, 'free')).toBe(false);
      expect(await exists(serviceAccounts, ns, 'demo')).toBe(false);
      const blocked = await client.get(configMaps, ns, 'blocked', { signal });
      expect(blocked.metadata.deletionTimestamp).toBeTruthy();
      expect(blocked.metadata.finalizers).toEqual([HOLD]);

      const second = await cleanup();
      expect(second.remaining).toEqual([blockedRef]);

      await client.patch(configMaps, ns, 'blocked', { metadata: { finalizers: null } }, 'merge', { signal });
      await expect.poll(async () => (await cleanup()).remaining, poll).toEqual([]);
      expect(await exists(configMaps, ns, 'blocked')).toBe(false);
    } finally {
      await client
        .patch(configMaps, ns, 'blocked', { metadata: { finalizers: null } }, 'merge', { signal })
        .catch((err: unknown) => {
          if (!(err instanceof NotFoundError)) throw err;
        });
      await deleteNs();
    }
  });
});
