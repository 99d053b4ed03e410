import { describe, expect, it } from 'vitest';
import { remember, touch } from './lru.js';

describe('lru', () => {
  it('evicts the least recently used entry beyond the bound, a touched one counting as used', () => {
    const m = new Map<string, number>();
    remember(m, 'a', 1, 2);
    remember(m, 'b', 2, 2);
    expect(touch(m, 'a')).toBe(1);
    remember(m, 'c', 3, 2);
    expect([...m.keys()]).toEqual(['a', 'c']);
    expect(touch(m, 'b')).toBeUndefined();
  });
});
