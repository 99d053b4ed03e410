import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { fakeShards } from '../../test/fakes/shards.js';
import { flush } from '../../test/support/flush.js';
import { Informer } from '../cache/informer.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import { ShardInformers } from './shard-informers.js';

const res: ApiResource = { group: 'x.io', version: 'v1', kind: 'X', plural: 'xs', namespaced: true };
const cr = (name: string, shard?: number): KubeObject => ({
  apiVersion: 'x.io/v1',
  kind: 'X',
  metadata: {
    namespace: 'ns',
    name,
    uid: `uid-${name}`,
    labels: { app: 'a', ...(shard === undefined ? {} : { [SHARD_LABEL]: String(shard) }) },
  },
});

function world(held: number[]) {
  const kube = new FakeKubeApi({
    served: [res],
    objects: [cr('a0', 0), cr('b0', 0), cr('c1', 1), cr('d'), cr('e2', 2)],
  });
  const shards = fakeShards(3, held);
  const clock = new FakeClock();
  const informers = new ShardInformers({
    shards,
    labelSelector: 'app=a',
    informer: (labelSelector) => new Informer({ client: kube, resource: res, namespace: 'ns', labelSelector, clock }),
  });
  const seen: string[] = [];
  informers.addEventHandler({
    onAdd: (o) => seen.push(`add ${o.metadata.name}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  return { kube, shards, informers, seen };
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();

describe('ShardInformers', () => {
  it('lists and watches only the CRs of the shards held, each with its own selector', async () => {
    const w = world([0]);
    const run = new AbortController();
    const running = w.informers.start(run.signal);
    await flush();
    expect(names(w.informers.list())).toEqual(['a0', 'b0']);
    expect(w.informers.hasSynced()).toBe(true);
    expect(w.informers.get('ns', 'a0')?.metadata.name).toBe('a0');
    expect(w.informers.get('ns', 'c1')).toBeUndefined();
    expect(w.kube.callsOf('list').map((c) => (c.options as { labelSelector?: string }).labelSelector)).toEqual([
      `app=a,${SHARD_LABEL}=0`,
    ]);

    w.shards.take(1);
    await flush();
    expect(names(w.informers.list())).toEqual(['a0', 'b0', 'c1']);
    expect(w.informers.shards()).toEqual([0, 1]);
    run.abort();
    await running;
  });

  it('drops a shard given back: its informer stops, its CRs are deleted to the handlers and no longer held', async () => {
    const w = world([0, 1]);
    const run = new AbortController();
    const running = w.informers.start(run.signal);
    await flush();
    w.seen.length = 0;
    w.shards.give(0);
    await flush();
    expect(w.seen.sort()).toEqual(['delete a0', 'delete b0']);
    expect(names(w.informers.list())).toEqual(['c1']);
    expect(w.informers.shards()).toEqual([1]);
    expect(w.kube.watches.filter((x) => !x.done).map((x) => x.options.labelSelector)).toEqual([
      `app=a,${SHARD_LABEL}=1`,
    ]);
    run.abort();
    await running;
    expect(w.seen.filter((s) => s === 'delete c1')).toEqual([]); // a shutdown deletes nothing
  });

  it('follows a CR relabelled into a shard held, and out of it', async () => {
    const w = world([1]);
    const run = new AbortController();
    const running = w.informers.start(run.signal);
    await flush();
    await w.kube.update(res, cr('a0', 1), { signal: run.signal }); // no resourceVersion: no precondition
    await flush();
    expect(names(w.informers.list())).toEqual(['a0', 'c1']);
    const back = cr('a0', 2);
    await w.kube.update(res, back, { signal: run.signal });
    await flush();
    expect(names(w.informers.list())).toEqual(['c1']);
    run.abort();
    await running;
  });
});
