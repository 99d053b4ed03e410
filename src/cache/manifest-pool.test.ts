import { describe, expect, it } from 'vitest';
import { ManifestPool } from './manifest-pool.js';

describe('ManifestPool', () => {
  it('pools one text per release, replaced by a different one, dropped by forget', () => {
    const pool = new ManifestPool();
    expect(pool.share('ns/a', 'kind: A')).toBe('kind: A');
    expect(pool.share('ns/a', 'kind: A')).toBe('kind: A');
    expect(pool.share('ns/b', 'kind: B')).toBe('kind: B');
    expect(pool.size).toBe(2);
    expect(pool.share('ns/a', 'kind: A2')).toBe('kind: A2');
    expect(pool.size).toBe(2);
    pool.forget('ns/a');
    pool.forget('ns/unknown');
    expect(pool.size).toBe(1);
  });

  it('keeps at most its bound, the least recently shared out first', () => {
    const pool = new ManifestPool(2);
    pool.share('ns/a', 'a');
    pool.share('ns/b', 'b');
    pool.share('ns/a', 'a');
    pool.share('ns/c', 'c');
    expect(pool.size).toBe(2);
    // 'ns/b' went: sharing it again pools it anew (and pushes out 'ns/a', used before 'ns/c').
    pool.share('ns/b', 'b');
    pool.forget('ns/c');
    expect(pool.size).toBe(1);
  });
});
