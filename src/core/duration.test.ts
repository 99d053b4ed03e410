import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';
import { ConfigError } from './errors.js';

describe('parseDuration', () => {
  describe('when the text is a Go duration', () => {
    it.each([
      ['0', 0],
      ['+0', 0],
      ['-0', 0],
      ['0s', 0],
      ['300ms', 300],
      ['30s', 30_000],
      ['1m', 60_000],
      ['1.5h', 5_400_000],
      ['2h45m', 9_900_000],
      ['1h1m1s1ms', 3_661_001],
      ['.5s', 500],
      ['1.s', 1000],
      ['+5s', 5000],
      ['-1s', -1000],
      ['-1.5m', -90_000],
      ['1us', 0.001],
      ['1\u00b5s', 0.001],
      ['1\u03bcs', 0.001],
      ['1ns', 0.000001],
      ['1.000000001s', 1000.000001],
      ['2562047h', 2562047 * 3_600_000],
    ])('reads %j as %d ms', (text, ms) => {
      expect(parseDuration(text)).toBeCloseTo(ms, 9);
    });
  });

  describe('when the text is not a Go duration', () => {
    it.each([
      ['', /it is empty/],
      ['-', /a sign alone/],
      ['1', /missing unit after "1"/],
      ['30', /missing unit/],
      ['4x', /unknown unit "x"/],
      ['1 s', /unknown unit " s"/],
      ['1S', /unknown unit "S"/],
      ['s', /expected a number/],
      ['.s', /needs digits/],
      ['1h-1m', /unknown unit "h-"/],
      ['1h 1m', /unknown unit "h "/],
      ['1.5.5s', /missing unit/],
      ['3000000h', /too large/],
      ['9223372036854775808ns', /too large/],
    ])('rejects %j: %s', (text, why) => {
      expect(() => parseDuration(text)).toThrow(why);
    });

    it('throws a ConfigError that quotes the value and shows valid examples', () => {
      const err: unknown = (() => {
        try {
          parseDuration('4x');
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
      expect(String(err)).toContain('invalid duration "4x"');
      expect(String(err)).toMatch(/"30s".*"1m30s"/);
    });

    it('accepts the most negative Go duration but not its positive twin', () => {
      expect(parseDuration('-9223372036854775808ns')).toBeCloseTo(-9_223_372_036_854.775, 0);
      expect(() => parseDuration('9223372036854775808ns')).toThrow(ConfigError);
    });
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [300, '300ms'],
    [1.5, '1.5ms'],
    [1500, '1.5s'],
    [60_000, '1m'],
    [90_000, '1m30s'],
    [3_600_000, '1h'],
    [9_900_000, '2h45m'],
    [3_661_001, '1h1m1.001s'],
    [-1000, '-1s'],
    [0.001, '1us'],
    [0.000001, '1ns'],
  ])('formats %d ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([0, 1, 300, 1500, 59_999, 90_000, 3_600_000, 9_900_000, 86_400_000, -42_000, 0.25])(
    'formats %d ms as text that parseDuration reads back',
    (ms) => {
      expect(parseDuration(formatDuration(ms))).toBeCloseTo(ms, 9);
    },
  );
});
