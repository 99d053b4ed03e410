import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { fakeShards } from '../../test/fakes/shards.js';
import { flush } from '../../test/support/flush.js';
import { Informer } from '../cache/informer.js';
import { silentLogger } from '../core/logger.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { shardOf } from '../leader/shard-hash.js';
import { SHARD_COUNT_ANNOTATION, SHARD_LABEL } from '../leader/shard-label.js';
import { shardGate } from './shard-gate.js';
import { ShardInformers } from './shard-informers.js';
import { ShardMover } from './shard-mover.js';

const res: ApiResource = { group: 'x.io', version: 'v1', kind: 'X', plural: 'xs', namespaced: true };
/** A uid whose shard of 2 is 0 and of 3 is `of3`. */
const uidWith = (of3: number) =>
  Array.from({ length: 200 }, (_, i) => `u-${i}`).find((u) => shardOf(u, 2) === 0 && shardOf(u, 3) === of3) ?? '';
const cr = (name: string, uid: string, annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'x.io/v1',
  kind: 'X',
  metadata: { namespace: 'ns', name, uid, labels: { [SHARD_LABEL]: '0' }, annotations },
});
const labelOf = (kube: FakeKubeApi, name: string) => kube.objects.get(`xs/ns/${name}`)?.metadata.labels?.[SHARD_LABEL];

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await flush();
}

describe('ShardMover', () => {
  it('moves a CR labelled for a smaller count once no reconcile of it runs, and holds it back until it is gone', async () => {
    const moving = uidWith(1);
    const kube = new FakeKubeApi({
      served: [res],
      objects: [
        cr('moves', moving, { [SHARD_COUNT_ANNOTATION]: '2' }),
        cr('by-hand', moving, {}),
        cr('stays', uidWith(0), { [SHARD_COUNT_ANNOTATION]: '2' }),
      ],
    });
    const shards = fakeShards(3, [0]);
    const clock = new FakeClock();
    const informers = new ShardInformers({
      shards,
      informer: (labelSelector) => new Informer({ client: kube, resource: res, namespace: 'ns', labelSelector, clock }),
    });
    const gate = shardGate({ shards, cached: (key) => informers.get('ns', key.split('/')[1] ?? '') });
    const enqueued: string[] = [];
    const mover = new ShardMover({
      kube,
      resource: res,
      shards,
      gate,
      informers,
      enqueue: (key) => enqueued.push(key),
      clock,
      logger: silentLogger,
    });
    // A reconcile of the CR to move runs when the mover starts: the move waits for it.
    let finish: () => void = () => undefined;
    const run = new AbortController();
    const sources = [informers.start(run.signal)];
    await settle();
    const reconcile = gate.run('ns/moves', run.signal, () => new Promise<void>((r) => (finish = r)), undefined);
    sources.push(mover.start(run.signal));
    await settle();
    expect(kube.callsOf('patch')).toEqual([]);
    finish();
    await reconcile;
    await settle();
    // Moved, and no longer held here (its informer let it go); the others stay.
    expect(labelOf(kube, 'moves')).toBe('1');
    expect(kube.objects.get('xs/ns/moves')?.metadata.annotations?.[SHARD_COUNT_ANNOTATION]).toBe('3');
    expect(labelOf(kube, 'by-hand')).toBe('0');
    expect(labelOf(kube, 'stays')).toBe('0');
    expect(informers.get('ns', 'moves')).toBeUndefined();
    expect(enqueued).toEqual(['ns/moves']);
    expect(gate.admit('ns/stays')).toBe(true);
    run.abort();
    await Promise.all(sources);
  });
});
