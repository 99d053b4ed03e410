import { describe, expect, it } from 'vitest';
import { closestField } from './fields.js';

const WATCH = ['group', 'version', 'kind', 'chart', 'selector', 'overrideValues', 'reconcilePeriod', 'helmTimeout'];

describe('closestField', () => {
  it.each([
    ['verison', 'version'], // a swap of neighbours is one edit
    ['versoin', 'version'],
    ['vresion', 'version'],
    ['grup', 'group'],
    ['kid', 'kind'], // a short key: one edit at most
    ['Chrat', 'chart'],
    ['overrideValue', 'overrideValues'], // a prefix
    ['reconcile_period', 'reconcilePeriod'], // "-" and "_" ignored
    ['helmtimout', 'helmTimeout'],
  ])('takes %s for %s', (key, field) => {
    expect(closestField(key, WATCH)).toBe(field);
  });

  it.each(['finalizer', 'apiVersion', 'foo', 'ab', 'name', 'values'])(
    'suggests nothing for %s, which is far from every field',
    (key) => {
      expect(closestField(key, WATCH)).toBeUndefined();
    },
  );
});
