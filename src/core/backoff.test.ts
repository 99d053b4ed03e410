import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const o = { baseMs: 5, maxMs: 100 };
    expect([0, 1, 2, 3, 4, 5, 2000].map((n) => backoffDelay(n, o))).toEqual([5, 10, 20, 40, 80, 100, 100]);
  });

  it('spreads a delay over ±jitter and rounds it', () => {
    const at = (r: number) => backoffDelay(0, { baseMs: 1000, maxMs: 30_000, jitter: 0.1, random: () => r });
    expect([at(0), at(0.5), at(0.999)]).toEqual([900, 1000, 1100]);
  });
});
