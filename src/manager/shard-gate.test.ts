import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { shardOf } from '../leader/shard-hash.js';
import type { ShardTicket } from '../leader/shards.js';
import { type ShardOwnership, shardGate } from './shard-gate.js';

/** Finds a uid that hashes to `shard` of 2. */
function uidIn(shard: number): string {
  for (let i = 0; ; i++) if (shardOf(`uid-${i}`, 2) === shard) return `uid-${i}`;
}

const cr = (name: string, uid?: string): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { namespace: 'ns', name, ...(uid === undefined ? {} : { uid }) },
});

function setup() {
  const objects = [cr('zero', uidIn(0)), cr('one', uidIn(1)), cr('no-uid')];
  const term = new AbortController();
  const exits: number[] = [];
  const shards: ShardOwnership = {
    count: 2,
    holds: (s) => s === 0,
    enter: (s): ShardTicket | undefined => (s === 0 ? { signal: term.signal, exit: () => exits.push(s) } : undefined),
    onAcquired: () => {},
  };
  const byKey = new Map(objects.map((o) => [`ns/${o.metadata.name}`, o]));
  const gate = shardGate({ shards, cached: (key) => byKey.get(key) });
  return { gate, objects, term, exits };
}

describe('shardGate', () => {
  it('admits the cached CRs of the shards held only', () => {
    const { gate } = setup();
    expect(gate.admit('ns/zero')).toBe(true);
    expect(gate.admit('ns/one')).toBe(false);
    expect(gate.admit('ns/no-uid')).toBe(false);
    expect(gate.admit('ns/gone')).toBe(false);
  });

  it('runs a reconcile under its shard’s term and always exits it', async () => {
    const { gate, term, exits } = setup();
    const signals: AbortSignal[] = [];
    const outcome = await gate.run(
      'ns/zero',
      new AbortController().signal,
      async (s) => {
        signals.push(s);
        return 'done';
      },
      'skipped',
    );
    expect(outcome).toBe('done');
    expect(exits).toEqual([0]);
    term.abort();
    expect(signals[0]?.aborted).toBe(true);
    await expect(
      gate.run('ns/zero', new AbortController().signal, () => Promise.reject(new Error('x')), ''),
    ).rejects.toThrow('x');
    expect(exits).toEqual([0, 0]);
  });

  it('skips a reconcile of a shard not held', async () => {
    const { gate } = setup();
    let called = false;
    const fn = async () => {
      called = true;
      return 'done';
    };
    expect(await gate.run('ns/one', new AbortController().signal, fn, 'skipped')).toBe('skipped');
    expect(called).toBe(false);
  });

  it('lists the keys of one shard', () => {
    const { gate, objects } = setup();
    expect(gate.keysOf(0, objects)).toEqual(['ns/zero']);
    expect(gate.keysOf(1, objects)).toEqual(['ns/one']);
  });
});
