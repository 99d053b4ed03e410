// Proves the Informer against a real API server: label-selected create/update/delete reach the store and the
// handlers, and server-ended watches are resumed from the last resourceVersion without a relist.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Informer } from '../../../src/cache/informer.js';
import type { InformerEvent } from '../../../src/cache/informer-contract.js';
import { createKubeClient } from '../../../src/kube/client.js';
import type { ApiResource, KubeClient, KubeObject } from '../../../src/kube/types.js';
import { createTestNamespace, type TestKube, testKube } from '../../support/kube.js';

const signal = new AbortController().signal;
const wait = { timeout: 30_000, interval: 100 };

describe('Informer against the test cluster', () => {
  let kube: TestKube;
  let client: KubeClient;
  let configMaps: ApiResource;

  beforeAll(async () => {
    kube = testKube();
    client = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig } }).client;
    configMaps = await client.discover({ group: '', version: 'v1', kind: 'ConfigMap' }, { signal });
  });

  const cm = (
    ns: string,
    name: string,
    labels: Record<string, string>,
    data: Record<string, string> = {},
  ): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels },
    data,
  });

  /** Starts an informer for ConfigMaps labelled app=watched in `ns`, recording handler calls and events. */
  async function startInformer(ns: string, watchTimeoutSeconds?: number) {
    const calls: string[] = [];
    const events: InformerEvent[] = [];
    const informer = new Informer({
      client,
      resource: configMaps,
      namespace: ns,
      labelSelector: 'app=watched',
      ...(watchTimeoutSeconds === undefined ? {} : { watchTimeoutSeconds }),
      onEvent: (e) => events.push(e),
    });
    const data = (o: KubeObject) => JSON.stringify(o.data ?? {});
    informer.addEventHandler({
      onAdd: (o) => calls.push(`add ${o.metadata.name} ${data(o)}`),
      onUpdate: (_, o) => calls.push(`update ${o.metadata.name} ${data(o)}`),
      onDelete: (o) => calls.push(`delete ${o.metadata.name}`),
    });
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await informer.waitForSync(signal);
    return {
      informer,
      calls,
      events,
      stop: async () => {
        stop.abort();
        await running;
      },
    };
  }

  it('sees create, update and delete of the ConfigMaps its label selector matches, and nothing else', async () => {
    const [ns, deleteNs] = await createTestNamespace(kube, 'informer-crud');
    await client.create(configMaps, cm(ns, 'before', { app: 'watched' }), { signal });
    const t = await startInformer(ns);
    try {
      expect(t.calls).toEqual(['add before {}']);
      await client.create(configMaps, cm(ns, 'seen', { app: 'watched' }, { v: '1' }), { signal });
      await client.create(configMaps, cm(ns, 'ignored', { app: 'other' }, { v: '1' }), { signal });
      await vi.waitFor(() => expect(t.informer.get(ns, 'seen')?.data).toEqual({ v: '1' }), wait);

      await client.patch(configMaps, ns, 'seen', { data: { v: '2' } }, 'merge', { signal });
      await vi.waitFor(() => expect(t.calls).toContain('update seen {"v":"2"}'), wait);
      await client.delete(configMaps, ns, 'seen', { signal });
      await vi.waitFor(() => expect(t.calls).toContain('delete seen'), wait);

      expect(t.informer.get(ns, 'seen')).toBeUndefined();
      expect(t.informer.get(ns, 'ignored')).toBeUndefined();
      expect(t.calls.some((c) => c.includes('ignored'))).toBe(false);
      expect(t.informer.list().map((o) => o.metadata.name)).toEqual(['before']);
    } finally {
      await t.stop();
      await deleteNs();
    }
  });

  it('keeps delivering events across several server-ended watches without relisting', async () => {
    const [ns, deleteNs] = await createTestNamespace(kube, 'informer-resume');
    const t = await startInformer(ns, 2);
    const watchEnds = () => t.events.filter((e) => e.type === 'watch-end');
    try {
      await vi.waitFor(() => expect(watchEnds().length).toBeGreaterThanOrEqual(3), { timeout: 30_000, interval: 200 });
      await client.create(configMaps, cm(ns, 'late', { app: 'watched' }, { v: '1' }), { signal });
      await vi.waitFor(() => expect(t.calls).toContain('add late {"v":"1"}'), wait);
      await client.patch(configMaps, ns, 'late', { data: { v: '2' } }, 'merge', { signal });
      await vi.waitFor(() => expect(t.calls).toContain('update late {"v":"2"}'), wait);

      expect(watchEnds().every((e) => e.type === 'watch-end' && e.reason === 'closed')).toBe(true);
      expect(t.events.filter((e) => e.type === 'list')).toHaveLength(1);
      expect(t.events.filter((e) => e.type === 'relist' || e.type === 'error')).toEqual([]);
      const starts = t.events.filter((e) => e.type === 'watch-start');
      expect(starts.every((e) => e.type === 'watch-start' && e.resourceVersion !== '' && e.timeoutSeconds === 2)).toBe(
        true,
      );
    } finally {
      await t.stop();
      await deleteNs();
    }
  });
});
