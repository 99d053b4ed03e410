import { describe, expect, it } from 'vitest';
import { isRecord } from './guards.js';

describe('isRecord', () => {
  it('accepts non-null objects that are not arrays', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    expect(isRecord(new Date(0))).toBe(true); // callers that must reject class instances check that themselves
  });
  it('rejects null, arrays and scalars', () => {
    for (const v of [null, undefined, [], [1], 'x', 1, 1n, true]) expect(isRecord(v)).toBe(false);
  });
});
