import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'],
    [{ a: undefined, b: [undefined, 1] }, '{"b":[null,1]}'],
    [{ é: 1, Z: 2, a: 3, '10': 4, '9': 5 }, '{"10":4,"9":5,"Z":2,"a":3,"é":1}'],
    [{ when: new Date(0) }, '{"when":"1970-01-01T00:00:00.000Z"}'],
    ['x"y', '"x\\"y"'],
    [[], '[]'],
  ])('encodes %j with sorted keys', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('does not depend on key insertion order', () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: 3 } })).toBe(canonicalJson({ b: { d: 3, c: 2 }, a: 1 }));
  });

  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  it.each([
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['a bigint', { n: 1n }],
    ['a function', { f: () => 1 }],
    ['a Map', { m: new Map([['a', 1]]) }],
    ['a Set', { s: new Set([1]) }],
    ['a cycle', cyclic],
    ['undefined at the top', undefined],
  ])('refuses %s instead of silently losing information', (_, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
