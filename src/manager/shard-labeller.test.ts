import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { fakeShards } from '../../test/fakes/shards.js';
import { flush } from '../../test/support/flush.js';
import { Informer } from '../cache/informer.js';
import { silentLogger } from '../core/logger.js';
import { FINALIZER } from '../finalizers/finalizers.js';
import { ConflictError } from '../kube/errors.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { shardOf } from '../leader/shard-hash.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import { ShardLabeller } from './shard-labeller.js';

const res: ApiResource = { group: 'x.io', version: 'v1', kind: 'X', plural: 'xs', namespaced: true };
const cr = (name: string, shard?: string): KubeObject => ({
  apiVersion: 'x.io/v1',
  kind: 'X',
  metadata: {
    namespace: 'ns',
    name,
    uid: `uid-${name}`,
    ...(shard === undefined ? {} : { labels: { [SHARD_LABEL]: shard } }),
  },
});
const labelOf = (kube: FakeKubeApi, name: string) => kube.objects.get(`xs/ns/${name}`)?.metadata.labels?.[SHARD_LABEL];

async function settle(clock: FakeClock, ms = 0): Promise<void> {
  for (let i = 0; i < 10; i++) await flush();
  if (ms > 0) {
    clock.advance(ms);
    for (let i = 0; i < 10; i++) await flush();
  }
}

function world(held: number[], objects: KubeObject[], count = 3) {
  const kube = new FakeKubeApi({ served: [res], objects });
  const shards = fakeShards(count, held);
  const clock = new FakeClock();
  const labeller = new ShardLabeller({
    kube,
    resource: res,
    shards,
    source: (labelSelector) => new Informer({ client: kube, resource: res, namespace: 'ns', labelSelector, clock }),
    clock,
    logger: silentLogger,
  });
  const run = new AbortController();
  const running = labeller.start(run.signal);
  return { kube, shards, clock, labeller, run, running };
}

describe('ShardLabeller', () => {
  it('labels the CRs without a shard by their uid hash while shard 0 is held, with their resourceVersion', async () => {
    const w = world([0], [cr('a'), cr('b', 'junk'), cr('c', '1')]);
    await settle(w.clock);
    expect(labelOf(w.kube, 'a')).toBe(String(shardOf('uid-a', 3)));
    expect(labelOf(w.kube, 'b')).toBe(String(shardOf('uid-b', 3)));
    expect(labelOf(w.kube, 'c')).toBe('1');
    const patches = w.kube.callsOf('patch');
    expect(patches).toHaveLength(2);
    for (const p of patches) expect((p.body as KubeObject).metadata.resourceVersion).toMatch(/^[0-9]+$/);
    // A CR created later is labelled too.
    w.kube.put(cr('d'));
    await settle(w.clock);
    expect(labelOf(w.kube, 'd')).toBe(String(shardOf('uid-d', 3)));
    w.run.abort();
    await w.running;
  });

  it('adds our finalizer in the same write when it is missing, but not to a CR being deleted or one that has it', async () => {
    const deleting: KubeObject = {
      ...cr('b'),
      metadata: { ...cr('b').metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other/x'] },
    };
    const has: KubeObject = { ...cr('c'), metadata: { ...cr('c').metadata, finalizers: [FINALIZER] } };
    const w = world([0], [{ ...cr('a'), metadata: { ...cr('a').metadata, finalizers: ['other/x'] } }, deleting, has]);
    await settle(w.clock);
    const sent = (name: string) =>
      (w.kube.callsOf('patch').find((p) => p.name === name)?.body as KubeObject | undefined)?.metadata;
    expect(sent('a')?.finalizers).toEqual(['other/x', FINALIZER]);
    expect(sent('a')?.labels?.[SHARD_LABEL]).toBe(String(shardOf('uid-a', 3)));
    expect(sent('b')).toBeDefined();
    expect(sent('b')?.finalizers).toBeUndefined();
    expect(sent('c')?.finalizers).toBeUndefined();
    expect(w.kube.callsOf('patch')).toHaveLength(3);
    w.run.abort();
    await w.running;
  });

  it('labels nothing unless it holds shard 0, and stops when shard 0 is given back', async () => {
    const w = world([1, 2], [cr('a')]);
    await settle(w.clock);
    expect(w.kube.callsOf(['list', 'watch', 'patch'])).toEqual([]);
    w.shards.take(0);
    await settle(w.clock);
    expect(labelOf(w.kube, 'a')).toBeDefined();
    w.shards.give(0);
    await settle(w.clock);
    expect(w.kube.watches.every((x) => x.done)).toBe(true);
    w.kube.put(cr('b'));
    await settle(w.clock);
    expect(labelOf(w.kube, 'b')).toBeUndefined();
    w.run.abort();
    await w.running;
  });

  it('loses a race without harm: a conflict is not retried, the CR is looked at again on its next change', async () => {
    const w = world([], [cr('a')]);
    w.kube.failOn({ verb: 'patch' }, new ConflictError({ status: 409, serverMessage: 'modified' }), 1);
    w.shards.take(0);
    await settle(w.clock, 5_000);
    expect(labelOf(w.kube, 'a')).toBeUndefined();
    expect(w.kube.callsOf('patch')).toHaveLength(1);
    // Someone else changed it: the new version comes through the watch and is labelled.
    const { resourceVersion: _rv, ...meta } = (w.kube.objects.get('xs/ns/a') as KubeObject).metadata;
    w.kube.put({ ...cr('a'), metadata: { ...meta, annotations: { x: '1' } } });
    await settle(w.clock);
    expect(labelOf(w.kube, 'a')).toBeDefined();
    w.run.abort();
    await w.running;
  });

  it('retries a failed write after a second', async () => {
    const w = world([], [cr('a')]);
    w.kube.failOn({ verb: 'patch' }, new Error('connection reset'), 1);
    w.shards.take(0);
    await settle(w.clock);
    expect(labelOf(w.kube, 'a')).toBeUndefined();
    await settle(w.clock, 1_000);
    expect(labelOf(w.kube, 'a')).toBeDefined();
    w.run.abort();
    await w.running;
  });

  it('moves the CRs of a retired shard only while holding that shard’s Lease', async () => {
    let free: () => void = () => undefined;
    const w = world([], [cr('a', '3'), cr('b', '3'), cr('c', '7')], 3);
    w.shards.retiredGate = new Promise((resolve) => {
      free = resolve;
    });
    w.shards.take(0);
    await settle(w.clock, 3_000);
    expect(w.kube.callsOf('patch')).toEqual([]); // a replica of the larger count still holds shard 3
    free();
    await settle(w.clock, 1_000);
    expect(w.shards.retired.sort()).toEqual([3, 7]);
    expect(['a', 'b', 'c'].map((n) => labelOf(w.kube, n))).toEqual(
      ['a', 'b', 'c'].map((n) => String(shardOf(`uid-${n}`, 3))),
    );
    w.run.abort();
    await w.running;
  });
});
