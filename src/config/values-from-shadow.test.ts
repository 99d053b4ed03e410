import { describe, expect, it } from 'vitest';
import { shadowedBySpec, shadowMessage } from './values-from-shadow.js';

const SECRET = 'Secret shop/ui key "values.yaml"';
const CONFIG = 'ConfigMap shop/defaults key "values.yaml"';

describe('shadowedBySpec', () => {
  it('names the keys the spec sets where a reference sets them too, as deepMerge lays the spec over them', () => {
    const layers = [
      { source: CONFIG, values: { replicaCount: 1, ui: { color: 'blue', size: 3 }, tags: ['a'] } },
      { source: SECRET, values: { ui: { message: 'from the Secret' }, db: { password: 'pw' } } },
    ];
    const spec = { replicaCount: 2, ui: { message: '', color: 'blue' }, tags: ['a'], other: true };
    expect(shadowedBySpec(layers, spec)).toEqual([
      { source: CONFIG, keys: ['replicaCount', 'tags', 'ui.color'] },
      { source: SECRET, keys: ['ui.message'] },
    ]);
  });

  it('counts equal values as shadowed too (no equality oracle on a Secret), and maps that merge as not', () => {
    const layers = [{ source: SECRET, values: { a: 'same', b: { c: 1 } } }];
    expect(shadowedBySpec(layers, { a: 'same', b: {} })).toEqual([{ source: SECRET, keys: ['a'] }]);
  });

  it('takes a map over a scalar, a scalar over a map and null as shadowing the whole key', () => {
    const layers = [{ source: SECRET, values: { a: 'x', b: { c: 1 }, d: 'y' } }];
    expect(shadowedBySpec(layers, { a: { deeper: 1 }, b: 'flat', d: null })).toEqual([
      { source: SECRET, keys: ['a', 'b', 'd'] },
    ]);
  });

  it('escapes a dot inside a key as --set does, and ignores inherited properties', () => {
    const layers = [{ source: SECRET, values: { 'example.com/x': 'v', toString: 'own' } }];
    expect(shadowedBySpec(layers, { 'example.com/x': 'w', constructor: 'c' })).toEqual([
      { source: SECRET, keys: ['example\\.com/x'] },
    ]);
  });

  it('is empty when the spec and the references share no key', () => {
    expect(shadowedBySpec([{ source: SECRET, values: { a: 1 } }], { b: 2 })).toEqual([]);
    expect(shadowedBySpec([], { b: 2 })).toEqual([]);
  });
});

describe('shadowMessage', () => {
  it('names the keys and their references, never a value', () => {
    expect(shadowMessage([{ source: SECRET, keys: ['ui.message'] }])).toBe(
      `the spec sets 1 key that values-from also sets, and the spec's values are used (inline values win, as in ` +
        `Flux): ui.message (from ${SECRET}). Remove it from the spec to use the referenced values`,
    );
    expect(
      shadowMessage([
        { source: CONFIG, keys: ['a', 'b'] },
        { source: SECRET, keys: ['c'] },
      ]),
    ).toContain(
      `3 keys that values-from also sets, and the spec's values are used (inline values win, as in Flux): a, b (from ${CONFIG}); c (from ${SECRET}). Remove them`,
    );
  });

  it('lists at most 20 keys and counts the rest', () => {
    const keys = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const message = shadowMessage([{ source: SECRET, keys }]) ?? '';
    expect(message).toContain('k19 (from');
    expect(message).not.toContain('k20');
    expect(message).toContain(', and 5 more.');
  });

  it('is undefined when nothing is shadowed', () => {
    expect(shadowMessage([])).toBeUndefined();
  });
});
