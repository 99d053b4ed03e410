import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { configMap, configMaps, FakeKubeApi, type FakeWatch, page } from '../../test/fakes/kube-api.js';
import { flush } from '../../test/support/flush.js';
import { GoneError, KubeTransportError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { InformerCensus } from './census.js';
import { Informer } from './informer.js';
import type { InformerEvent, InformerOptions } from './informer-contract.js';

const rv = (o: KubeObject) => o.metadata.resourceVersion;

let stopAll: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stopAll) await stop();
  stopAll = [];
});

function setup(overrides: Partial<InformerOptions> = {}) {
  const client = new FakeKubeApi({ scriptedLists: true });
  const clock = new FakeClock();
  const events: InformerEvent[] = [];
  const calls: string[] = [];
  const informer = new Informer({
    client,
    resource: configMaps,
    namespace: 'default',
    clock,
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    ...overrides,
  });
  informer.addEventHandler({
    onAdd: (o) => calls.push(`add ${o.metadata.name}@${rv(o)}`),
    onUpdate: (a, b) => calls.push(`update ${b.metadata.name} ${rv(a)}->${rv(b)}`),
    onDelete: (o) => calls.push(`delete ${o.metadata.name}@${rv(o)}`),
  });
  const ac = new AbortController();
  const running = informer.start(ac.signal);
  const stop = async () => {
    ac.abort();
    await running;
  };
  stopAll.push(stop);
  const errors = () => events.filter((e) => e.type === 'error');
  const lists = () => events.filter((e) => e.type === 'list').length;
  return { client, clock, events, calls, informer, ac, running, stop, errors, lists };
}

/** Starts an informer whose first LIST returns `items` at `resourceVersion` and returns its first watch. */
async function synced(items: KubeObject[], resourceVersion: string, overrides: Partial<InformerOptions> = {}) {
  const t = setup(overrides);
  t.client.enqueueList(page(items, resourceVersion));
  const watch = await t.client.nextWatch();
  return { ...t, watch };
}

describe('Informer', () => {
  describe('on start', () => {
    it('lists every page, fills the store and calls onAdd, then watches from the list resourceVersion', async () => {
      const t = setup({ labelSelector: 'app=x' });
      t.client.enqueueList(
        page([configMap('a', '3'), configMap('b', '4')], '10', 'next-page'),
        page([configMap('c', '5')], '10'),
      );
      const watch = await t.client.nextWatch();

      expect(t.client.listCalls.map((c) => [c.limit, c.continue, c.labelSelector, c.namespace])).toEqual([
        [500, undefined, 'app=x', 'default'],
        [500, 'next-page', 'app=x', 'default'],
      ]);
      expect(t.informer.hasSynced()).toBe(true);
      expect(t.calls).toEqual(['add a@3', 'add b@4', 'add c@5']);
      expect(t.informer.list().map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
      expect(t.informer.get('default', 'b')?.metadata.resourceVersion).toBe('4');
      expect(watch.options).toMatchObject({
        resourceVersion: '10',
        allowWatchBookmarks: true,
        timeoutSeconds: 480,
        labelSelector: 'app=x',
        namespace: 'default',
      });
      expect(t.events).toContainEqual({ type: 'list', resourceVersion: '10', items: 3, pages: 2 });
    });

    it('resolves waitForSync once the first list is applied, and rejects it on abort before that', async () => {
      const t = setup();
      const early = new AbortController();
      const abandoned = t.informer.waitForSync(early.signal);
      const waiting = t.informer.waitForSync(new AbortController().signal);
      early.abort(new Error('gave up'));
      await expect(abandoned).rejects.toThrow('gave up');
      expect(t.informer.hasSynced()).toBe(false);
      t.client.enqueueList(page([], '1'));
      await expect(waiting).resolves.toBeUndefined();
    });

    it('randomises the server-side watch timeout by ±10%', async () => {
      const low = await synced([], '1', { random: () => 0, watchTimeoutSeconds: 600 });
      const high = await synced([], '1', { random: () => 0.999, watchTimeoutSeconds: 600 });
      expect(low.watch.options.timeoutSeconds).toBe(540);
      expect(high.watch.options.timeoutSeconds).toBe(660);
    });
  });

  describe('while watching', () => {
    it('applies ADDED, MODIFIED and DELETED events to the store and calls the handlers', async () => {
      const t = await synced([configMap('a', '1')], '1');
      t.watch.added(configMap('b', '2'));
      t.watch.modified(configMap('a', '3'));
      t.watch.deleted(configMap('b', '4'));
      expect(t.calls).toEqual(['add a@1', 'add b@2', 'update a 1->3', 'delete b@4']);
      expect(t.informer.list().map((o) => `${o.metadata.name}@${rv(o)}`)).toEqual(['a@3']);
    });

    it('reports its store and the watch events it receives to its census, and leaves the census when stopped', async () => {
      const census = new InformerCensus();
      const t = await synced([configMap('a', '1')], '1', { census });
      t.watch.added(configMap('b', '2'));
      t.watch.modified(configMap('a', '3'));
      t.watch.bookmark('4');
      expect(census.objects()).toEqual(new Map([['ConfigMap', 2]]));
      expect(census.events()).toEqual([
        { kind: 'ConfigMap', type: 'ADDED', count: 1 },
        { kind: 'ConfigMap', type: 'MODIFIED', count: 1 },
        { kind: 'ConfigMap', type: 'BOOKMARK', count: 1 },
      ]);
      await t.stop();
      expect(census.objects()).toEqual(new Map([['ConfigMap', 0]]));
    });

    it('keeps running and reports the error when a handler throws', async () => {
      const t = await synced([], '1');
      const seen: string[] = [];
      t.informer.addEventHandler({
        onAdd: () => {
          throw new Error('handler bug');
        },
      });
      t.informer.addEventHandler({ onAdd: (o) => seen.push(o.metadata.name ?? '') });
      t.watch.added(configMap('a', '2'));
      expect(seen).toEqual(['a']);
      expect(t.errors()).toMatchObject([{ phase: 'handler', error: { message: 'handler bug' } }]);
      expect(t.watch.done).toBe(false);
    });

    it('gives a handler added later an onAdd for every object already stored', async () => {
      const t = await synced([configMap('a', '1'), configMap('b', '1')], '1');
      const late: string[] = [];
      const remove = t.informer.addEventHandler({ onAdd: (o) => late.push(o.metadata.name ?? '') });
      expect(late).toEqual(['a', 'b']);
      remove();
      t.watch.added(configMap('c', '2'));
      expect(late).toEqual(['a', 'b']);
    });
  });

  describe('when the server ends the watch normally', () => {
    it('resumes from the last seen resourceVersion (bookmarks included) without relisting', async () => {
      const t = await synced([configMap('a', '1')], '1');
      t.watch.added(configMap('b', '7'));
      t.watch.bookmark('15');
      t.watch.end();
      const second = await t.client.nextWatch();
      expect(second.options.resourceVersion).toBe('15');
      second.modified(configMap('a', '16'));
      second.end();
      const third = await t.client.nextWatch();
      expect(third.options.resourceVersion).toBe('16');

      expect(t.client.listCalls).toHaveLength(1);
      expect(t.lists()).toBe(1);
      expect(t.events.filter((e) => e.type === 'relist')).toEqual([]);
      expect(t.events).toContainEqual({ type: 'bookmark', resourceVersion: '15' });
      expect(t.events).toContainEqual({
        type: 'watch-end',
        reason: 'closed',
        resourceVersion: '15',
        events: 2,
        durationMs: 0,
      });
    });

    it('treats a watch that ends at once without any event as an error and backs off', async () => {
      const t = await synced([], '1');
      t.watch.end();
      await flush();
      expect(t.errors()).toMatchObject([{ phase: 'watch', retryInMs: 1000 }]);
      t.clock.advance(999);
      await flush();
      expect(t.client.watches).toHaveLength(1);
      t.clock.advance(1);
      const next = await t.client.nextWatch();
      expect(next.options.resourceVersion).toBe('1');
    });

    it('accepts a watch that ends without events after its timeout as healthy', async () => {
      const t = await synced([], '1');
      t.clock.advance(5_000);
      t.watch.end();
      const next = await t.client.nextWatch();
      expect(next.options.resourceVersion).toBe('1');
      expect(t.errors()).toEqual([]);
    });
  });

  describe('when the resourceVersion is too old (410 Gone)', () => {
    it('relists after an HTTP 410 and dispatches only the difference', async () => {
      const t = await synced([configMap('a', '1'), configMap('b', '1')], '1');
      t.watch.added(configMap('c', '2'));
      t.watch.fail(new GoneError({ status: 410, reason: 'Expired' }));
      await flush();
      expect(t.client.listCalls).toHaveLength(2);
      t.client.enqueueList(page([configMap('a', '1'), configMap('b', '3'), configMap('d', '4')], '5'));
      const next = await t.client.nextWatch();

      expect(next.options.resourceVersion).toBe('5');
      expect(t.calls.slice(3)).toEqual(['delete c@2', 'add d@4', 'update b 1->3']);
      expect(t.informer.list().map((o) => `${o.metadata.name}@${rv(o)}`)).toEqual(['a@1', 'b@3', 'd@4']);
      expect(t.events).toContainEqual({ type: 'relist', reason: 'gone' });
      expect(t.errors()).toEqual([]);
    });

    it('relists after an ERROR event with code 410 in the stream and closes that watch', async () => {
      const t = await synced([configMap('a', '1')], '1');
      t.watch.modified(configMap('a', '2'));
      t.watch.emit({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } });
      expect(t.watch.signal.aborted).toBe(true);
      await flush();
      expect(t.client.listCalls).toHaveLength(2);
      t.client.enqueueList(page([configMap('a', '9')], '9'));
      expect((await t.client.nextWatch()).options.resourceVersion).toBe('9');
      expect(t.lists()).toBe(2);
    });

    it('waits for the backoff delay before relisting when a watch is refused with 410 at once', async () => {
      const t = await synced([], '1');
      t.watch.fail(new GoneError({ status: 410 }));
      await flush();
      expect(t.client.listCalls).toHaveLength(1);
      t.clock.advance(1_000);
      await flush();
      expect(t.client.listCalls).toHaveLength(2);
    });

    it('relists after the base delay when the first 410 follows an outage, and doubles it for 410s in a row', async () => {
      const t = await synced([], '1');
      let watch: FakeWatch = t.watch;
      for (const delay of [1_000, 2_000, 4_000]) {
        watch.fail(new KubeTransportError('connection refused'));
        await flush();
        t.clock.advance(delay);
        watch = await t.client.nextWatch();
      }
      watch.fail(new GoneError({ status: 410 }));
      await flush();
      t.clock.advance(999);
      await flush();
      expect(t.client.listCalls).toHaveLength(1);
      t.client.enqueueList(page([], '2'));
      t.clock.advance(1);
      await flush();
      expect(t.client.listCalls).toHaveLength(2);
      watch = await t.client.nextWatch();
      watch.fail(new GoneError({ status: 410 }));
      await flush();
      t.clock.advance(1_999);
      await flush();
      expect(t.client.listCalls).toHaveLength(2);
      t.client.enqueueList(page([], '3'));
      t.clock.advance(1);
      await flush();
      expect(t.client.listCalls).toHaveLength(3);
    });

    it('backs off and resumes the watch after an ERROR event other than 410', async () => {
      const t = await synced([], '1');
      t.watch.emit({ type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError' } });
      await flush();
      expect(t.errors()).toMatchObject([{ phase: 'watch', retryInMs: 1000, error: { status: 500 } }]);
      t.clock.advance(1_000);
      expect((await t.client.nextWatch()).options.resourceVersion).toBe('1');
      expect(t.client.listCalls).toHaveLength(1);
    });
  });

  describe('when requests fail', () => {
    it('retries a failing watch with doubling delays capped at 10 s, from the same resourceVersion', async () => {
      const t = await synced([], '42');
      let watch: FakeWatch = t.watch;
      const delays: number[] = [];
      for (let i = 0; i < 8; i++) {
        watch.fail(new KubeTransportError('connection reset'));
        await flush();
        const last = t.errors().at(-1);
        const delay = last?.type === 'error' ? (last.retryInMs ?? -1) : -1;
        delays.push(delay);
        t.clock.advance(delay - 1);
        await flush();
        expect(t.client.watches).toHaveLength(i + 1);
        t.clock.advance(1);
        watch = await t.client.nextWatch();
        expect(watch.options.resourceVersion).toBe('42');
      }
      expect(delays).toEqual([1000, 2000, 4000, 8000, 10000, 10000, 10000, 10000]);
      expect(t.client.listCalls).toHaveLength(1);
    });

    it('starts the backoff over after a healthy event', async () => {
      const t = await synced([], '1');
      t.watch.fail(new KubeTransportError('reset'));
      await flush();
      t.clock.advance(1_000);
      const second = await t.client.nextWatch();
      second.fail(new KubeTransportError('reset'));
      await flush();
      t.clock.advance(2_000);
      const third = await t.client.nextWatch();
      third.bookmark('2');
      third.fail(new KubeTransportError('reset'));
      await flush();
      expect(t.errors().map((e) => (e.type === 'error' ? e.retryInMs : undefined))).toEqual([1000, 2000, 1000]);
    });

    it('never gives up on a failing LIST and syncs once it succeeds', async () => {
      const t = setup();
      t.client.enqueueList(...Array.from({ length: 6 }, () => new KubeTransportError('refused')));
      for (const delay of [1000, 2000, 4000, 8000, 16000, 30000]) {
        await flush();
        t.clock.advance(delay);
      }
      t.client.enqueueList(page([configMap('a', '1')], '1'));
      await t.informer.waitForSync(new AbortController().signal);
      expect(t.errors().every((e) => e.type === 'error' && e.phase === 'list')).toBe(true);
      expect(t.errors()).toHaveLength(6);
      expect(t.calls).toEqual(['add a@1']);
    });
  });

  describe('the inactivity watchdog', () => {
    it('aborts a watch silent for longer than the limit and resumes without relisting or backoff', async () => {
      const t = await synced([], '1', { inactivityTimeoutMs: 300_000 });
      t.clock.advance(200_000);
      t.watch.bookmark('7');
      t.clock.advance(299_999);
      expect(t.watch.signal.aborted).toBe(false);
      t.clock.advance(1);
      expect(t.watch.signal.aborted).toBe(true);
      const next = await t.client.nextWatch();
      expect(next.options.resourceVersion).toBe('7');
      expect(t.events).toContainEqual(expect.objectContaining({ type: 'watch-end', reason: 'stalled', events: 1 }));
      expect(t.client.listCalls).toHaveLength(1);
      expect(t.errors()).toEqual([]);
    });

    it('leaves no timer behind once the watch ended', async () => {
      const t = await synced([], '1');
      t.clock.advance(2_000);
      t.watch.end();
      await t.client.nextWatch();
      expect(t.clock.pendingTimers()).toBe(1);
    });
  });

  describe('when aborted', () => {
    it('resolves start() during a watch and during a backoff sleep', async () => {
      const watching = await synced([], '1');
      await watching.stop();
      expect(watching.watch.signal.aborted).toBe(true);

      const sleeping = await synced([], '1');
      sleeping.watch.fail(new KubeTransportError('reset'));
      await flush();
      await sleeping.stop();
      expect(sleeping.clock.pendingTimers()).toBe(0);
    });

    it('refuses to be started twice', async () => {
      const t = setup();
      await expect(t.informer.start(new AbortController().signal)).rejects.toMatchObject({ code: 'INFORMER_STARTED' });
    });
  });
});
