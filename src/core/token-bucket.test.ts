import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('drops once empty and refills with time, up to capacity', () => {
    const b = new TokenBucket({ capacity: 2, amount: 1, periodMs: 1000, now: 0 });
    expect([b.tryTake(0), b.tryTake(0), b.tryTake(0)]).toEqual([true, true, false]);
    expect(b.tryTake(999)).toBe(false);
    expect(b.tryTake(1000)).toBe(true);
    expect([b.tryTake(60_000), b.tryTake(60_000), b.tryTake(60_000)]).toEqual([true, true, false]);
  });

  it('reserves into debt, each reservation waiting for its own token, and takes one back', () => {
    const b = new TokenBucket({ capacity: 1, amount: 10, periodMs: 1000, now: 0 });
    expect([b.reserve(0), b.reserve(0), b.reserve(0)]).toEqual([0, 100, 200]);
    b.unreserve();
    expect(b.reserve(0)).toBe(200);
  });

  it('earns nothing when time goes backwards', () => {
    const b = new TokenBucket({ capacity: 1, amount: 1, periodMs: 1000, now: 5000 });
    expect(b.tryTake(5000)).toBe(true);
    expect(b.tryTake(1000)).toBe(false);
    expect(b.tryTake(5999)).toBe(false);
    expect(b.tryTake(6000)).toBe(true);
  });
});
