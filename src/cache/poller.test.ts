import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import { flush } from '../../test/support/flush.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { ListPoller } from './poller.js';

const res: ApiResource = { group: 'x.io', version: 'v1', kind: 'X', plural: 'xs', namespaced: true };
const cr = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'x.io/v1',
  kind: 'X',
  metadata: { namespace: 'ns', name, labels },
});

async function settle(clock: FakeClock, ms = 0): Promise<void> {
  for (let i = 0; i < 10; i++) await flush();
  if (ms > 0) clock.advance(ms);
  for (let i = 0; i < 10; i++) await flush();
}

function world(objects: KubeObject[], before?: (kube: FakeKubeApi) => void) {
  const kube = new FakeKubeApi({ served: [res], objects });
  before?.(kube);
  const clock = new FakeClock();
  const log = recordingLogger();
  const poller = new ListPoller({
    client: kube,
    resource: res,
    namespace: 'ns',
    labelSelector: 'shard notin (0,1)',
    periodMs: 500,
    clock,
    logger: log.logger,
  });
  const seen: string[] = [];
  poller.addEventHandler({
    onAdd: (o) => seen.push(`add ${o.metadata.name}`),
    onUpdate: (_old, o) => seen.push(`update ${o.metadata.name}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  const run = new AbortController();
  const running = poller.start(run.signal);
  return { kube, clock, log, poller, seen, run, running };
}

describe('ListPoller', () => {
  it('reports what matches its selector as added, then what changed or left at the next LIST', async () => {
    const w = world([cr('a'), cr('b', { shard: '1' }), cr('c', { shard: '7' })]);
    await settle(w.clock);
    expect(w.seen.sort()).toEqual(['add a', 'add c']);
    expect(w.poller.get('ns', 'a')?.metadata.name).toBe('a');
    await w.kube.patch(res, 'ns', 'a', { metadata: { labels: { shard: '0' } } }, 'merge', {
      signal: new AbortController().signal,
    });
    await w.kube.patch(res, 'ns', 'c', { metadata: { annotations: { x: 'y' } } }, 'merge', {
      signal: new AbortController().signal,
    });
    await settle(w.clock, 500);
    expect(w.seen.slice(2).sort()).toEqual(['delete a', 'update c']);
    expect(w.poller.list().map((o) => o.metadata.name)).toEqual(['c']);
    w.run.abort();
    await w.running;
    expect(w.poller.list()).toEqual([]);
  });

  it('lists no more often than its period, and only the metadata', async () => {
    const w = world([cr('a')]);
    await settle(w.clock);
    await settle(w.clock, 499);
    expect(w.kube.listCalls).toHaveLength(1);
    await settle(w.clock, 1);
    const lists = w.kube.listCalls;
    expect(lists).toHaveLength(2);
    expect(lists[0]).toMatchObject({ namespace: 'ns', labelSelector: 'shard notin (0,1)', metadataOnly: true });
    w.run.abort();
    await w.running;
  });

  it('says once that a LIST failed, and tries again next period', async () => {
    const w = world([cr('a')], (kube) => kube.failOn({ verb: 'list' }, new Error('down'), 2));
    await settle(w.clock);
    await settle(w.clock, 500);
    expect(w.seen).toEqual([]);
    expect(w.log.lines.filter((r) => r.msg === 'Could not list; trying again')).toHaveLength(1);
    await settle(w.clock, 500);
    expect(w.seen).toEqual(['add a']);
    w.run.abort();
    await w.running;
  });
});
