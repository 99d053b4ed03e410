// DependentWatcher against a fake API: events of chart-labelled objects reach the owning CR's key; bookkeeping-only
// updates do not, unless they change readiness; an update carrying the resourceVersion drift repair just wrote is
// its own echo and is dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { configMap, configMaps, FakeKubeApi, page } from '../../test/fakes/kube-api.js';
import { flush } from '../../test/support/flush.js';
import { silentLogger } from '../core/logger.js';
import type { KubeObject } from '../kube/types.js';
import { type DependentTrigger, DependentWatcher } from './watcher.js';

const owned = (name: string, rv: string, data: Record<string, string> = {}): KubeObject =>
  configMap(name, rv, {
    metadata: {
      name,
      namespace: 'default',
      resourceVersion: rv,
      ownerReferences: [{ apiVersion: 'demo.example.com/v1', kind: 'Shop', name: 'shop', uid: 'u1', controller: true }],
    },
    data,
  });

let stop: AbortController | undefined;
afterEach(() => stop?.abort());

async function setup() {
  const client = new FakeKubeApi({ scriptedLists: true });
  const triggers: DependentTrigger[] = [];
  stop = new AbortController();
  const watcher = new DependentWatcher({
    kube: client,
    namespaces: ['default'],
    charts: ['nginx'],
    trigger: (t) => triggers.push(t),
    clock: new FakeClock(),
    logger: silentLogger,
    signal: stop.signal,
  });
  watcher.ensure([configMaps]);
  client.enqueueList(page([owned('a', '1')], '1'));
  const watch = await client.nextWatch();
  await flush();
  return { client, watcher, watch, triggers };
}

describe('DependentWatcher', () => {
  it('waitForSync resolves once the first LIST is in, and after its timeout when the LIST never comes', async () => {
    const client = new FakeKubeApi({ scriptedLists: true });
    stop = new AbortController();
    const watcher = new DependentWatcher({
      kube: client,
      namespaces: ['default'],
      charts: ['nginx'],
      trigger: () => undefined,
      clock: new FakeClock(),
      logger: silentLogger,
      signal: stop.signal,
    });
    watcher.ensure([configMaps]);
    expect(watcher.get(configMaps, 'default', 'a')).toBeUndefined();
    await watcher.waitForSync([configMaps], 10, stop.signal); // no LIST answered: gives up after 10 ms
    expect(watcher.get(configMaps, 'default', 'a')).toBeUndefined();
    const synced = watcher.waitForSync([configMaps], 60_000, stop.signal);
    client.enqueueList(page([owned('a', '1')], '1'));
    await synced;
    expect(watcher.get(configMaps, 'default', 'a')?.metadata.name).toBe('a');
  });

  it('selects by the chart label and maps an object to its controller owner', async () => {
    const { client, triggers } = await setup();
    expect(client.listCalls[0]?.labelSelector).toBe('helm.sdk.operatorframework.io/chart in (nginx)');
    expect(triggers).toEqual([
      expect.objectContaining({ groupKind: 'Shop.demo.example.com', key: 'default/shop', event: 'add' }),
    ]);
  });

  describe('when drift repair wrote the object', () => {
    it('drops the update that carries exactly that resourceVersion, but not a later one', async () => {
      const { watcher, watch, triggers } = await setup();
      watcher.expectEcho(configMaps, owned('a', '5'));
      watch.modified(owned('a', '5', { k: 'chart' }));
      await flush();
      expect(triggers.filter((t) => t.event === 'update')).toEqual([]);
      watch.modified(owned('a', '6', { k: 'someone else' }));
      await flush();
      expect(triggers.filter((t) => t.event === 'update')).toHaveLength(1);
    });

    it('still reports a delete of that object', async () => {
      const { watcher, watch, triggers } = await setup();
      watcher.expectEcho(configMaps, owned('a', '5'));
      watch.deleted(owned('a', '5'));
      await flush();
      expect(triggers.map((t) => t.event)).toEqual(['add', 'delete']);
    });
  });

  it('ignores an update that changed only status, resourceVersion or managedFields', async () => {
    const { watch, triggers } = await setup();
    watch.modified({
      ...owned('a', '7'),
      status: { x: 1 },
      metadata: { ...owned('a', '7').metadata, managedFields: [] },
    });
    await flush();
    expect(triggers.map((t) => t.event)).toEqual(['add']);
  });

  it('reports a status-only update that changes the readiness kstatus reads from it, and no other', async () => {
    const { watch, triggers } = await setup();
    // A kind with no rule of its own (as cert-manager's Certificate): its Ready condition decides.
    const withReady = (rv: string, status: string, message: string): KubeObject => ({
      ...owned('a', rv),
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      status: { conditions: [{ type: 'Ready', status, message }], seen: rv },
    });
    watch.modified(withReady('7', 'False', 'waiting'));
    watch.modified(withReady('8', 'False', 'waiting'));
    watch.modified(withReady('9', 'True', 'ok'));
    await flush();
    expect(triggers.map((t) => t.event)).toEqual(['add', 'update', 'update']);
  });

  it("ignores an object whose annotations name a CR in a namespace it does not watch (another operator's)", async () => {
    const { watch, triggers } = await setup();
    const annotated = (owner: string): KubeObject =>
      configMap(`for-${owner}`, '8', {
        metadata: {
          name: `for-${owner.replace('/', '-')}`,
          namespace: 'default',
          resourceVersion: '8',
          annotations: {
            'operator-sdk/primary-resource': owner,
            'operator-sdk/primary-resource-type': 'Shop.demo.example.com',
          },
        },
      });
    watch.added(annotated('elsewhere/shop'));
    watch.added(annotated('default/shop2'));
    await flush();
    expect(triggers.map((t) => t.key)).toEqual(['default/shop', 'default/shop2']);
  });
});
