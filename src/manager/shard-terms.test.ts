import { describe, expect, it } from 'vitest';
import { type FakeShards, fakeShards } from '../../test/fakes/shards.js';
import { shardTerms } from './shard-terms.js';

function terms(shards: FakeShards, only?: (s: number) => boolean) {
  const opened: { shard: number; signal: AbortSignal }[] = [];
  const t = shardTerms({ shards, ...(only ? { only } : {}), open: (shard, signal) => opened.push({ shard, signal }) });
  return { t, opened };
}

describe('shardTerms', () => {
  it('opens the shards held at start, then each one taken, and ends a term when its shard is given back', () => {
    const shards = fakeShards(3, [1]);
    const { t, opened } = terms(shards);
    shards.take(2); // before start: picked up by start, not twice
    const run = new AbortController();
    t.start(run.signal);
    expect(opened.map((o) => o.shard)).toEqual([1, 2]);
    shards.take(0);
    expect(t.open()).toEqual([0, 1, 2]);
    shards.give(1);
    expect(opened[0]?.signal.aborted).toBe(true);
    expect(opened[1]?.signal.aborted).toBe(false);
    expect(t.open()).toEqual([0, 2]);
    run.abort();
    expect(opened.every((o) => o.signal.aborted)).toBe(true);
    shards.take(1);
    expect(opened).toHaveLength(3);
  });

  it('opens only the shards asked for', () => {
    const shards = fakeShards(3, [0, 1]);
    const { t, opened } = terms(shards, (s) => s === 0);
    t.start(new AbortController().signal);
    shards.give(0);
    shards.take(0);
    shards.take(2);
    expect(opened.map((o) => o.shard)).toEqual([0, 0]);
  });
});
