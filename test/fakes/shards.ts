// A shard set driven by hand, for unit tests of what follows the shards held (the shard gate, terms, informers and
// labeller of src/manager/): take(i) and give(i) call the listeners as leader/shards.ts would, without Leases.
// Test-only; holdRetired runs its function at once unless a test blocks it.
import type { ShardTicket } from '../../src/leader/shards.js';
import type { ShardOwnership } from '../../src/manager/shard-gate.js';

export interface FakeShards extends ShardOwnership {
  take(shard: number): void;
  give(shard: number): void;
  /** The retired shards held through holdRetired, in order. */
  readonly retired: number[];
  /** While set, holdRetired waits for it (another replica still holds the retired shard). */
  retiredGate: Promise<void> | undefined;
}

export function fakeShards(count: number, held: readonly number[] = []): FakeShards {
  const holding = new Set(held);
  const acquired: ((s: number) => void)[] = [];
  const released: ((s: number) => void)[] = [];
  const shards: FakeShards = {
    count,
    retired: [],
    retiredGate: undefined,
    holds: (s) => holding.has(s),
    held: () => [...holding].sort((a, b) => a - b),
    enter: (s): ShardTicket | undefined =>
      holding.has(s) ? { signal: new AbortController().signal, exit: () => undefined } : undefined,
    onAcquired: (fn) => void acquired.push(fn),
    onReleased: (fn) => void released.push(fn),
    async holdRetired(shard, signal, fn) {
      await shards.retiredGate;
      signal.throwIfAborted();
      shards.retired.push(shard);
      await fn(signal);
    },
    take(s) {
      holding.add(s);
      for (const fn of acquired) fn(s);
    },
    give(s) {
      holding.delete(s);
      for (const fn of released) fn(s);
    },
  };
  return shards;
}
