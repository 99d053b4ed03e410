import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { flush } from '../../test/support/flush.js';
import { silentLogger } from '../core/logger.js';
import { HANDOVER_ANNOTATION } from './handover.js';
import { microTime } from './lease-record.js';
import { ShardSet } from './shards.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

async function advance(clock: FakeClock, ms: number, step = 250): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done));
    await flush();
  }
}

function world() {
  const clock = new FakeClock({ nowMs: T0 });
  const kube = new FakeKubeApi();
  const lease = (i: number) => kube.objects.get(`leases/ns/op-shard-${i}`);
  const holder = (i: number) => (lease(i)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
  const replica = (index: number, identity: string, count = 2) => {
    const changes: [number, boolean][] = [];
    const set = new ShardSet({
      kube,
      namespace: 'ns',
      id: 'op',
      count,
      index,
      identity,
      clock,
      logger: silentLogger,
      onHeldChange: (shard, _lease, held) => changes.push([shard, held]),
    });
    const stop = new AbortController();
    const running = set.run(stop.signal);
    return { set, changes, stop, running };
  };
  return { clock, kube, lease, holder, replica };
}

describe('ShardSet', () => {
  it('takes its own shard at once, and another one only after a lease duration without its owner', async () => {
    const w = world();
    const a = w.replica(0, 'a', 3);
    await flush();
    expect(a.set.held()).toEqual([0]);
    await advance(w.clock, 14_000);
    expect(a.set.held()).toEqual([0]);
    await advance(w.clock, 2_000);
    expect(a.set.held()).toEqual([0, 1, 2]);
    a.stop.abort();
    await a.running;
    expect([0, 1, 2].map(w.holder)).toEqual(['', '', '']);
  });

  it('splits the shards between their owners, and gates reconciles by what is held', async () => {
    const w = world();
    const a = w.replica(0, 'a');
    const b = w.replica(1, 'b');
    await advance(w.clock, 60_000);
    expect(a.set.held()).toEqual([0]);
    expect(b.set.held()).toEqual([1]);
    expect(a.set.enter(1)).toBeUndefined();
    const ticket = a.set.enter(0);
    expect(ticket?.signal.aborted).toBe(false);
    ticket?.exit();
    for (const r of [a, b]) r.stop.abort();
    await Promise.all([a.running, b.running]);
  });

  it('takes over a dead owner’s shard once its lease expired, and hands it back when the owner returns', async () => {
    const w = world();
    // Replica 1 died holding its shard: its lease was renewed at T0 and never again.
    w.kube.put({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'op-shard-1', namespace: 'ns' },
      spec: { holderIdentity: 'dead', leaseDurationSeconds: 15, renewTime: microTime(T0), acquireTime: microTime(T0) },
    });
    const a = w.replica(0, 'a');
    const acquired: number[] = [];
    a.set.onAcquired((s) => acquired.push(s));
    /** Each release with the lease holder at that moment: after the drain, before the lease is handed on. */
    const released: [number, string | undefined][] = [];
    a.set.onReleased((s) => released.push([s, w.holder(s)]));
    await advance(w.clock, 14_500);
    expect(a.set.held()).toEqual([0]);
    await advance(w.clock, 2_500);
    expect(a.set.held()).toEqual([0, 1]);
    expect(acquired).toEqual([0, 1]);
    expect(w.holder(1)).toBe('a');

    // A reconcile of shard 1 runs while its owner comes back: the handover waits for it.
    const running = a.set.enter(1);
    const b = w.replica(1, 'b');
    await advance(w.clock, 3_000);
    expect(w.lease(1)?.metadata.annotations?.[HANDOVER_ANNOTATION]).toBe('b');
    expect(a.set.holds(1)).toBe(false); // no new reconcile of shard 1 is admitted
    expect(w.holder(1)).toBe('a'); // but the lease stays until the running one is done
    expect(running?.signal.aborted).toBe(false);
    expect(released).toEqual([]);
    running?.exit();
    await advance(w.clock, 3_000);
    expect(released).toEqual([[1, 'a']]);
    expect(w.holder(1)).toBe('b');
    expect(b.set.held()).toEqual([1]);
    expect(a.set.held()).toEqual([0]);
    expect(w.lease(1)?.metadata.annotations?.[HANDOVER_ANNOTATION]).toBeUndefined();
    expect(a.changes).toEqual([
      [0, true],
      [1, true],
      [1, false],
    ]);
    for (const r of [a, b]) r.stop.abort();
    await Promise.all([a.running, b.running]);
  });

  it('aborts the running reconciles of a shard whose lease is lost, and campaigns again', async () => {
    const w = world();
    const a = w.replica(0, 'a');
    await flush();
    const ticket = a.set.enter(0);
    // Another holder took the lease behind our back (a partition), a write with a new resourceVersion: the next renew
    // (an update of the Lease as we wrote it) conflicts, reads it and sees the intruder.
    const lease = w.lease(0);
    if (lease === undefined) throw new Error('no lease');
    const { resourceVersion: _old, ...metadata } = lease.metadata;
    w.kube.put({
      ...lease,
      metadata,
      spec: { ...(lease.spec as object), holderIdentity: 'intruder', renewTime: microTime(T0 + 1_000) },
    });
    await advance(w.clock, 2_500);
    expect(ticket?.signal.aborted).toBe(true);
    expect(a.set.holds(0)).toBe(false);
    ticket?.exit();
    await advance(w.clock, 16_000);
    expect(a.set.holds(0)).toBe(true);
    a.stop.abort();
    await a.running;
  });

  it('holds a retired shard’s Lease (one beyond the count) only once nobody else does, and releases it', async () => {
    const w = world();
    w.kube.put({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'op-shard-2', namespace: 'ns' },
      spec: { holderIdentity: 'old', leaseDurationSeconds: 15, renewTime: microTime(T0), acquireTime: microTime(T0) },
    });
    const a = w.replica(0, 'a');
    const ran: string[] = [];
    const done = a.set.holdRetired(2, a.stop.signal, async (s) => {
      ran.push(`${w.holder(2)} ${s.aborted}`);
    });
    await advance(w.clock, 14_000);
    expect(ran).toEqual([]);
    await advance(w.clock, 3_000);
    await done;
    expect(ran).toEqual(['a false']);
    expect(w.holder(2)).toBe('');
    await expect(a.set.holdRetired(1, a.stop.signal, async () => undefined)).rejects.toThrow(RangeError);
    a.stop.abort();
    await a.running;
  });

  it('rejects a bad count or index', () => {
    const w = world();
    const base = { kube: w.kube, namespace: 'ns', id: 'op', identity: 'a', clock: w.clock, logger: silentLogger };
    expect(() => new ShardSet({ ...base, count: 1, index: 0 })).toThrow(RangeError);
    expect(() => new ShardSet({ ...base, count: 3, index: 3 })).toThrow(RangeError);
  });
});
