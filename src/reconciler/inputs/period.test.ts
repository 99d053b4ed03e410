import { describe, expect, it } from 'vitest';
import { PERIOD_JITTER, periodicRequeue, recheckRequeue } from './period.js';

describe('periodicRequeue', () => {
  it('asks for no requeue when the period is 0', () => {
    expect(periodicRequeue(0, () => 0.5)).toEqual({});
    expect(periodicRequeue(0, undefined)).toEqual({});
  });

  it('keeps the period exact without a jitter source', () => {
    expect(periodicRequeue(60_000, undefined)).toEqual({ requeueAfterMs: 60_000 });
  });

  it('spreads the period uniformly over ±10 %, in whole ms', () => {
    expect(PERIOD_JITTER).toBe(0.1);
    expect(periodicRequeue(60_000, () => 0)).toEqual({ requeueAfterMs: 54_000 });
    expect(periodicRequeue(60_000, () => 0.25)).toEqual({ requeueAfterMs: 57_000 });
    expect(periodicRequeue(60_000, () => 0.5)).toEqual({ requeueAfterMs: 60_000 });
    expect(periodicRequeue(60_000, () => 0.999_999)).toEqual({ requeueAfterMs: 66_000 });
    expect(periodicRequeue(1_001, () => 0.3)).toEqual({ requeueAfterMs: 961 });
  });

  it('never asks for less than 1 ms', () => {
    expect(periodicRequeue(1, () => 0)).toEqual({ requeueAfterMs: 1 });
  });
});

describe('recheckRequeue', () => {
  it.each([
    [0, 5_000],
    [9_000, 5_000],
    [20_000, 10_000],
    [80_000, 40_000],
    [3_600_000, 60_000],
  ])('not ready for %i ms: comes back after %i ms', (since, delay) => {
    expect(recheckRequeue({ requeueAfterMs: 600_000 }, since)).toEqual({ requeueAfterMs: delay });
    expect(recheckRequeue({}, since)).toEqual({ requeueAfterMs: delay });
  });

  it('keeps a periodic requeue that is sooner already', () => {
    expect(recheckRequeue({ requeueAfterMs: 3_000 }, 0)).toEqual({ requeueAfterMs: 3_000 });
  });
});
