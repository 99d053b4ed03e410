import { describe, expect, it } from 'vitest';
import { PERIOD_JITTER, periodicRequeue } from './period.js';

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
