import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fnv1a32, shardLeaseName, shardOf } from './shard-hash.js';

describe('fnv1a32', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('hashes %j as the reference FNV-1a 32-bit', (text, hash) => {
    expect(fnv1a32(text)).toBe(hash);
  });

  it('hashes the UTF-8 bytes, not UTF-16 code units', () => {
    let h = 0x811c9dc5;
    for (const b of [0xc3, 0xa9]) h = Math.imul(h ^ b, 0x01000193) >>> 0; // "é" in UTF-8
    expect(fnv1a32('é')).toBe(h);
  });
});

describe('shardOf', () => {
  it('is stable: the same uid always lands in the same shard', () => {
    const uid = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    expect(shardOf(uid, 3)).toBe(fnv1a32(uid) % 3);
    expect(shardOf(uid, 3)).toBe(shardOf(uid, 3));
  });

  it('puts everything in shard 0 with one shard', () => {
    expect(shardOf(randomUUID(), 1)).toBe(0);
  });

  it('spreads random uids evenly enough over 3 shards', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) {
      const shard = shardOf(randomUUID(), 3);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects the count %s', (count) => {
    expect(() => shardOf('uid', count)).toThrow(RangeError);
  });
});

describe('shardLeaseName', () => {
  it('is <id>-shard-<index>', () => {
    expect(shardLeaseName('my-operator', 2)).toBe('my-operator-shard-2');
  });
});
