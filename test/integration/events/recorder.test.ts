// Proves the EventRecorder against a real API server: a repeated event becomes one Event with count 2 whose
// involvedObject, type, reason, message and source are right, and events over the per-object burst are dropped.
import type { CoreV1Event } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/logger.js';
import { createEventRecorder } from '../../../src/events/recorder.js';
import { createKubeClient } from '../../../src/kube/client.js';
import type { KubeClient } from '../../../src/kube/types.js';
import { createTestNamespace, type TestKube, testKube } from '../../support/kube.js';

const signal = new AbortController().signal;

describe('EventRecorder against the test cluster', () => {
  let kube: TestKube;
  let client: KubeClient;

  beforeAll(() => {
    kube = testKube();
    client = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig } }).client;
  });

  /** Runs `fn` with a fresh namespace holding a ConfigMap `target`; the namespace is deleted afterwards. */
  async function withConfigMap(
    prefix: string,
    fn: (ns: string, cm: { uid: string; resourceVersion: string }) => Promise<void>,
  ): Promise<void> {
    const [ns, deleteNs] = await createTestNamespace(kube, prefix);
    try {
      const cm = await kube.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'target' } } });
      await fn(ns, { uid: cm.metadata?.uid ?? '', resourceVersion: cm.metadata?.resourceVersion ?? '' });
    } finally {
      await deleteNs();
    }
  }

  const events = async (ns: string): Promise<CoreV1Event[]> =>
    (await kube.core.listNamespacedEvent({ namespace: ns })).items.filter((e) => e.involvedObject.name === 'target');

  it('writes one Event with count 2 for a repeated event and a separate Event for a different one', () =>
    withConfigMap('events-agg', async (ns, { uid, resourceVersion }) => {
      const recorder = createEventRecorder({ kube: client, component: 'nginx-controller', logger: silentLogger });
      const target = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'target', namespace: ns, uid, resourceVersion },
      };
      recorder.event(target, 'Warning', 'InstallError', 'chart failed to render');
      recorder.event(target, 'Warning', 'InstallError', 'chart failed to render');
      recorder.event(target, 'Normal', 'Deployed', 'release installed');
      await recorder.flush(signal);

      expect(recorder.stats()).toEqual({ created: 2, patched: 1, dropped: 0, failed: 0 });
      const list = await events(ns);
      expect(list).toHaveLength(2);
      const repeated = list.find((e) => e.reason === 'InstallError');
      expect(repeated).toMatchObject({
        count: 2,
        type: 'Warning',
        message: 'chart failed to render',
        source: { component: 'nginx-controller' },
        reportingComponent: 'nginx-controller',
        reportingInstance: 'helm-operator',
        involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'target', namespace: ns, uid, resourceVersion },
      });
      expect(repeated?.metadata.name).toMatch(/^target\.[0-9a-f]{16}$/);
      expect(repeated?.firstTimestamp).toBeInstanceOf(Date);
      expect(repeated?.lastTimestamp).toBeInstanceOf(Date);
      expect(list.find((e) => e.reason === 'Deployed')).toMatchObject({
        count: 1,
        type: 'Normal',
        message: 'release installed',
        involvedObject: { uid },
      });
    }));

  it('drops events about one object beyond its burst', () =>
    withConfigMap('events-burst', async (ns, { uid }) => {
      const recorder = createEventRecorder({ kube: client, component: 'c', logger: silentLogger, burst: 3 });
      const target = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', namespace: ns, uid } };
      for (let i = 1; i <= 5; i++) recorder.event(target, 'Normal', `Reason${i}`, `event ${i}`);
      await recorder.flush(signal);

      expect(recorder.stats()).toMatchObject({ created: 3, dropped: 2, failed: 0 });
      const list = await events(ns);
      expect(list.map((e) => e.reason).sort()).toEqual(['Reason1', 'Reason2', 'Reason3']);
    }));
});
