import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { flush } from '../../test/support/flush.js';
import { silentLogger } from '../core/logger.js';
import { KubeApiError } from '../kube/errors.js';
import { LeaderElector, LeadershipLostError } from './election.js';
import { HANDOVER_ANNOTATION } from './handover.js';
import { microTime } from './lease-record.js';

interface Spec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** Leases in namespace `ns` of the in-memory API: read a spec, put one behind the elector's back, take it down. */
class FakeLeases {
  readonly client = new FakeKubeApi();

  /** While true, every call fails with a 503. */
  set down(down: boolean) {
    this.client.down = down ? new KubeApiError({ status: 503 }) : undefined;
  }

  get writes(): number {
    return this.client.writes;
  }

  spec(name = 'lock'): Spec | undefined {
    return this.client.objects.get(`leases/ns/${name}`)?.spec as Spec | undefined;
  }

  put(spec: Spec, name = 'lock'): void {
    this.client.put({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'ns' }, spec });
  }
}

async function advance(clock: FakeClock, ms: number, step = 500): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done));
    await flush();
  }
}

const T0 = Date.parse('2026-01-01T00:00:00Z');

function setup(identity = 'me') {
  const clock = new FakeClock({ nowMs: T0 });
  const leases = new FakeLeases();
  const changes: boolean[] = [];
  const elector = new LeaderElector({
    kube: leases.client,
    namespace: 'ns',
    name: 'lock',
    identity,
    clock,
    logger: silentLogger,
    onLeadingChange: (l) => changes.push(l),
  });
  return { clock, leases, elector, changes };
}

describe('LeaderElector', () => {
  it('creates and takes a free lease at once', async () => {
    const { leases, elector, changes } = setup();
    await elector.acquire(new AbortController().signal);
    expect(elector.isLeader()).toBe(true);
    expect(changes).toEqual([true]);
    expect(leases.spec()).toEqual({
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
  });

  it('waits while another holder renews, and takes over once the lease expired (transitions + 1)', async () => {
    const { clock, leases, elector } = setup();
    leases.put({
      holderIdentity: 'other',
      leaseDurationSeconds: 15,
      renewTime: microTime(T0),
      acquireTime: microTime(T0),
      leaseTransitions: 3,
    });
    let acquired = false;
    void elector.acquire(new AbortController().signal).then(() => {
      acquired = true;
    });
    await flush();
    await advance(clock, 14_000);
    expect(acquired).toBe(false);
    expect(elector.isLeader()).toBe(false);
    await advance(clock, 2_000);
    expect(acquired).toBe(true);
    expect(leases.spec()).toMatchObject({
      holderIdentity: 'me',
      leaseTransitions: 4,
      acquireTime: microTime(T0 + 16_000),
    });
  });

  it('takes over a released lease (holder "") without waiting for its old duration', async () => {
    const { leases, elector } = setup();
    leases.put({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(T0), leaseTransitions: 1 });
    await elector.acquire(new AbortController().signal);
    expect(leases.spec()).toMatchObject({ holderIdentity: 'me', leaseTransitions: 2, leaseDurationSeconds: 15 });
  });

  it('loses a write race without error and retries', async () => {
    const { clock, leases, elector } = setup();
    let raced = false;
    leases.put({ holderIdentity: '', renewTime: microTime(T0) });
    leases.client.on('before', { verb: 'update' }, () => {
      if (!raced) {
        raced = true;
        leases.put({ holderIdentity: '', renewTime: microTime(T0) });
      }
    });
    const done = elector.acquire(new AbortController().signal);
    await flush();
    expect(elector.isLeader()).toBe(false);
    await advance(clock, 2_000);
    await done;
    expect(elector.isLeader()).toBe(true);
  });

  it('renews every retry period, keeping acquireTime and transitions', async () => {
    const { clock, leases, elector } = setup();
    await elector.acquire(new AbortController().signal);
    await advance(clock, 2_000);
    expect(leases.spec()).toMatchObject({ renewTime: microTime(T0 + 2_000), acquireTime: microTime(T0) });
    await advance(clock, 6_000);
    expect(leases.spec()).toMatchObject({ renewTime: microTime(T0 + 8_000), leaseTransitions: 0 });
    expect(leases.writes).toBe(5);
    expect(elector.leaderSignal.aborted).toBe(false);
  });

  it('renews the Lease as it last wrote it, one update and no read, and reads it again only after a conflict', async () => {
    const { clock, leases, elector } = setup();
    await elector.acquire(new AbortController().signal);
    const verbs = () => leases.client.calls.filter((c) => c.key === 'leases/ns/lock').map((c) => c.verb);
    const before = verbs().length;
    await advance(clock, 6_000);
    expect(verbs().slice(before)).toEqual(['update', 'update', 'update']);
    // Someone else wrote it (a new resourceVersion), still naming us: the update conflicts, a read, then an update.
    const current = leases.spec();
    leases.put({ ...current, leaseTransitions: 0 });
    const mid = verbs().length;
    await advance(clock, 2_000);
    expect(verbs().slice(mid)).toEqual(['update', 'get', 'update']);
    expect(elector.isLeader()).toBe(true);
    expect(leases.spec()).toMatchObject({ holderIdentity: 'me', renewTime: microTime(T0 + 8_000) });
  });

  it('survives failed renews shorter than the renew deadline', async () => {
    const { clock, leases, elector } = setup();
    await elector.acquire(new AbortController().signal);
    leases.down = true;
    await advance(clock, 8_000);
    leases.down = false;
    await advance(clock, 2_000);
    expect(elector.isLeader()).toBe(true);
    expect(leases.spec()?.renewTime).toBe(microTime(T0 + 10_000));
  });

  it('loses leadership when no renew succeeds within the renew deadline', async () => {
    const { clock, leases, elector, changes } = setup();
    await elector.acquire(new AbortController().signal);
    leases.down = true;
    await advance(clock, 8_000);
    expect(elector.leaderSignal.aborted).toBe(false);
    await advance(clock, 2_000);
    expect(elector.isLeader()).toBe(false);
    expect(elector.leaderSignal.aborted).toBe(true);
    expect(elector.leaderSignal.reason).toBeInstanceOf(LeadershipLostError);
    expect(changes).toEqual([true, false]);
  });

  it('loses leadership at once when another holder took the lease', async () => {
    const { clock, leases, elector } = setup();
    await elector.acquire(new AbortController().signal);
    leases.put({ holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: microTime(T0 + 1_000) });
    await advance(clock, 2_000);
    expect(elector.leaderSignal.aborted).toBe(true);
  });

  it('release frees the lease it still holds so a successor takes over at once', async () => {
    const { clock, leases, elector, changes } = setup();
    await elector.acquire(new AbortController().signal);
    await advance(clock, 3_000);
    await elector.release(new AbortController().signal);
    expect(elector.isLeader()).toBe(false);
    expect(elector.leaderSignal.aborted).toBe(false);
    expect(changes).toEqual([true, false]);
    expect(leases.spec()).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      renewTime: microTime(T0 + 3_000),
      leaseTransitions: 0,
    });
    const writes = leases.writes;
    await advance(clock, 10_000);
    expect(leases.writes).toBe(writes);
    const next = new LeaderElector({
      kube: leases.client,
      namespace: 'ns',
      name: 'lock',
      identity: 'next',
      clock,
      logger: silentLogger,
    });
    await next.acquire(new AbortController().signal);
    expect(leases.spec()).toMatchObject({ holderIdentity: 'next', leaseTransitions: 1 });
  });

  it('release leaves a lease alone that someone else holds', async () => {
    const { clock, leases, elector } = setup();
    await elector.acquire(new AbortController().signal);
    leases.put({ holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: microTime(T0) });
    await elector.release(new AbortController().signal);
    await advance(clock, 1_000);
    expect(leases.spec()?.holderIdentity).toBe('other');
  });

  it('acquire rejects with the signal reason when stopped while waiting', async () => {
    const { clock, leases, elector } = setup();
    leases.put({ holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: microTime(T0) });
    const stop = new AbortController();
    const done = elector.acquire(stop.signal);
    await advance(clock, 2_000);
    stop.abort(new Error('stop'));
    await expect(done).rejects.toThrow('stop');
    expect(elector.isLeader()).toBe(false);
  });

  describe('handover (sharding)', () => {
    it('asks a valid holder for the lease once, and reports the request to a holder on its renews', async () => {
      const { clock, leases } = setup();
      const asked: string[] = [];
      const owner = new LeaderElector({
        kube: leases.client,
        namespace: 'ns',
        name: 'lock',
        identity: 'owner',
        clock,
        logger: silentLogger,
        requestHandover: true,
      });
      const requests: string[] = [];
      const watching = new LeaderElector({
        kube: leases.client,
        namespace: 'ns',
        name: 'lock',
        identity: 'holder',
        clock,
        logger: silentLogger,
        onHandoverRequest: (to) => requests.push(to),
      });
      await watching.acquire(new AbortController().signal);
      const stop = new AbortController();
      const waiting = owner.acquire(stop.signal).catch(() => asked.push('stopped'));
      await advance(clock, 4_000);
      const lease = leases.client.objects.get('leases/ns/lock');
      expect(lease?.metadata.annotations?.[HANDOVER_ANNOTATION]).toBe('owner');
      expect(requests.length).toBeGreaterThan(0);
      expect(new Set(requests)).toEqual(new Set(['owner']));
      expect(owner.isLeader()).toBe(false);

      // Handing over makes the owner the holder with a fresh term; the owner's next attempt renews it as its own.
      await watching.release(new AbortController().signal, { to: 'owner' });
      expect(leases.spec()).toMatchObject({ holderIdentity: 'owner', leaseDurationSeconds: 15, leaseTransitions: 1 });
      await advance(clock, 2_000);
      expect(owner.isLeader()).toBe(true);
      expect(leases.client.objects.get('leases/ns/lock')?.metadata.annotations?.[HANDOVER_ANNOTATION]).toBeUndefined();
      stop.abort();
      await waiting;
      expect(asked).toEqual([]);
    });
  });
});
