import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import type { ShardTicket } from '../leader/shards.js';
import { type ShardGateOptions, shardGate } from './shard-gate.js';

/** A CR labelled with `shard` (no label when undefined); its uid plays no part. */
const cr = (name: string, shard?: string): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: {
    namespace: 'ns',
    name,
    uid: `uid-${name}`,
    ...(shard === undefined ? {} : { labels: { [SHARD_LABEL]: shard } }),
  },
});

function setup() {
  const objects = [cr('zero', '0'), cr('one', '1'), cr('unlabelled'), cr('retired', '2'), cr('garbage', 'x')];
  const term = new AbortController();
  const exits: number[] = [];
  const shards: ShardGateOptions['shards'] = {
    count: 2,
    holds: (s) => s === 0,
    enter: (s): ShardTicket | undefined => (s === 0 ? { signal: term.signal, exit: () => exits.push(s) } : undefined),
  };
  const byKey = new Map(objects.map((o) => [`ns/${o.metadata.name}`, o]));
  const gate = shardGate({ shards, cached: (key) => byKey.get(key) });
  return { gate, objects, term, exits };
}

describe('shardGate', () => {
  it('admits the cached CRs labelled with a shard held only', () => {
    const { gate } = setup();
    expect(gate.admit('ns/zero')).toBe(true);
    expect(gate.admit('ns/one')).toBe(false);
    expect(gate.admit('ns/unlabelled')).toBe(false);
    expect(gate.admit('ns/retired')).toBe(false);
    expect(gate.admit('ns/garbage')).toBe(false);
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

  it('holds a key back: no new reconcile is admitted or run, and the hold resolves once the running one is done', async () => {
    const { gate } = setup();
    let finish: () => void = () => undefined;
    const running = gate.run(
      'ns/zero',
      new AbortController().signal,
      () => new Promise<string>((resolve) => (finish = () => resolve('done'))),
      'skipped',
    );
    let idle = false;
    const held = gate.hold('ns/zero', new AbortController().signal).then(() => {
      idle = true;
    });
    expect(gate.admit('ns/zero')).toBe(false);
    expect(await gate.run('ns/zero', new AbortController().signal, async () => 'again', 'skipped')).toBe('skipped');
    await Promise.resolve();
    expect(idle).toBe(false);
    finish();
    expect(await running).toBe('done');
    await held;
    expect(idle).toBe(true);
    gate.settle('ns/zero');
    expect(gate.admit('ns/zero')).toBe(true);
    await gate.hold('ns/one', new AbortController().signal); // nothing running: at once
  });
});
