import { describe, expect, it } from 'vitest';
import { parseQuantity, sameQuantity } from './quantity.js';

const NANO = 1_000_000_000n;

describe('parseQuantity', () => {
  describe('when the value is a Kubernetes quantity', () => {
    it.each<[string | number, bigint]>([
      ['1', NANO],
      [1, NANO],
      ['0', 0n],
      ['-0', 0n],
      ['500m', NANO / 2n],
      [0.5, NANO / 2n],
      ['0.5', NANO / 2n],
      ['.5', NANO / 2n],
      ['1.', NANO],
      ['+2', 2n * NANO],
      ['-1.5', -3n * (NANO / 2n)],
      ['100n', 100n],
      ['3u', 3000n],
      ['2k', 2000n * NANO],
      ['1M', 1_000_000n * NANO],
      ['1G', 1_000_000_000n * NANO],
      ['1E', 10n ** 18n * NANO],
      ['1Ki', 1024n * NANO],
      ['1Gi', 1073741824n * NANO],
      ['1.5Gi', 1610612736n * NANO],
      ['1Ei', 1024n ** 6n * NANO],
      ['1e3', 1000n * NANO],
      ['1E3', 1000n * NANO],
      ['1e-3', NANO / 1000n],
      ['1e+21', 10n ** 21n * NANO],
      [1e21, 10n ** 21n * NANO],
      [5e-7, 500n],
    ])('reads %j', (value, nano) => {
      expect(parseQuantity(value)).toBe(nano);
    });

    it('rounds values below a nano-unit up, as the API server does', () => {
      expect(parseQuantity('0.1n')).toBe(1n);
      expect(parseQuantity('1.0000000001')).toBe(NANO + 1n);
      expect(parseQuantity('-0.1n')).toBe(-1n);
    });
  });

  describe('when the value is not a quantity', () => {
    it.each<[unknown]>([
      [''],
      ['abc'],
      ['1 Gi'],
      [' 1'],
      ['1Gb'],
      ['1ki'],
      ['1e'],
      ['1e1.5'],
      ['1e1000'],
      ['--1'],
      ['.'],
      [Number.NaN],
      [Number.POSITIVE_INFINITY],
      [true],
      [null],
      [undefined],
      [{}],
    ])('rejects %j', (value) => {
      expect(parseQuantity(value)).toBeUndefined();
    });
  });
});

describe('sameQuantity', () => {
  it.each<[unknown, unknown]>([
    ['500m', 0.5],
    ['500m', '0.5'],
    ['1Gi', '1024Mi'],
    ['1Gi', 1073741824],
    ['1', 1],
    ['1000m', '1'],
    ['1k', '1e3'],
  ])('treats %j and %j as the same amount', (a, b) => {
    expect(sameQuantity(a, b)).toBe(true);
  });

  it.each<[unknown, unknown]>([
    ['1Gi', '1G'],
    ['500m', '0.6'],
    ['abc', 'abc'],
    [undefined, undefined],
    ['1', undefined],
  ])('tells %j and %j apart', (a, b) => {
    expect(sameQuantity(a, b)).toBe(false);
  });
});
