import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { ExponentialBackoff } from './backoff.js';

describe('ExponentialBackoff', () => {
  describe('when a key keeps failing', () => {
    it('doubles from 5 ms and stays capped at 1000 s', () => {
      const backoff = new ExponentialBackoff();
      const delays = Array.from({ length: 22 }, () => backoff.when('a'));
      expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
      expect(delays).toEqual(Array.from({ length: 22 }, (_, n) => Math.min(5 * 2 ** n, 1_000_000)));
      expect(delays.at(-1)).toBe(1_000_000);
      expect(backoff.failures('a')).toBe(22);
    });

    it('still returns the cap after so many failures that 2^n overflows', () => {
      const backoff = new ExponentialBackoff();
      for (let i = 0; i < 1100; i++) backoff.when('a');
      expect(backoff.when('a')).toBe(1_000_000);
    });
  });

  describe('when several keys fail', () => {
    it('counts each key separately', () => {
      const backoff = new ExponentialBackoff();
      backoff.when('a');
      backoff.when('a');
      expect(backoff.when('b')).toBe(5);
      expect(backoff.failures('a')).toBe(2);
      expect(backoff.failures('b')).toBe(1);
      expect(backoff.failures('never')).toBe(0);
    });
  });

  describe('when forget() is called', () => {
    it('starts again at the base delay', () => {
      const backoff = new ExponentialBackoff();
      backoff.when('a');
      backoff.when('a');
      backoff.forget('a');
      expect(backoff.failures('a')).toBe(0);
      expect(backoff.when('a')).toBe(5);
    });
  });

  describe('with custom options', () => {
    it('uses the given base and cap', () => {
      const backoff = new ExponentialBackoff({ baseMs: 100, maxMs: 1000 });
      expect(Array.from({ length: 6 }, () => backoff.when('a'))).toEqual([100, 200, 400, 800, 1000, 1000]);
    });

    it.each([
      { baseMs: 0 },
      { baseMs: -1 },
      { baseMs: Number.NaN },
      { baseMs: 10, maxMs: 5 },
      { maxMs: Number.POSITIVE_INFINITY },
    ])('rejects %o with a ConfigError', (options) => {
      expect(() => new ExponentialBackoff(options)).toThrow(ConfigError);
    });
  });
});
