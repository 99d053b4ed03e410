import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { DEFAULT_HELM_TIMEOUT_MS, MAX_HELM_TIMEOUT_MS, parseHelmTimeout, stillRunningAfterMs } from './timeout.js';

describe('parseHelmTimeout', () => {
  it.each([
    ['90s', 90_000],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['24h', MAX_HELM_TIMEOUT_MS],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseHelmTimeout(text)).toBe(ms);
  });

  it.each([
    ['0', 'it must be above zero'],
    ['-5s', 'it must be above zero'],
    ['25h', 'it must be at most 24h'],
    ['90', 'missing unit'],
    ['soon', 'expected a number'],
  ])('rejects %j with a ConfigError that quotes it and says why (%s)', (text, why) => {
    expect(() => parseHelmTimeout(text)).toThrow(ConfigError);
    expect(() => parseHelmTimeout(text)).toThrow(JSON.stringify(text));
    expect(() => parseHelmTimeout(text)).toThrow(why);
  });
});

describe('stillRunningAfterMs', () => {
  it("reports a run after 30 s under helm's default 5m and any longer timeout", () => {
    expect(stillRunningAfterMs(DEFAULT_HELM_TIMEOUT_MS)).toBe(30_000);
    expect(stillRunningAfterMs(MAX_HELM_TIMEOUT_MS)).toBe(30_000);
  });

  it('reports it after a quarter of a timeout shorter than 2m, while three quarters remain', () => {
    expect(stillRunningAfterMs(20_000)).toBe(5_000);
    expect(stillRunningAfterMs(60_000)).toBe(15_000);
    expect(stillRunningAfterMs(120_000)).toBe(30_000);
  });
});
