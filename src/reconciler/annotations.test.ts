import { describe, expect, it } from 'vitest';
import { boolAnnotation, parseGoBool, RECONCILE_PERIOD, reconcilePeriod, UPGRADE_FORCE } from './annotations.js';

describe('parseGoBool', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('reads %s as true', (s) => expect(parseGoBool(s)).toBe(true));
  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('reads %s as false', (s) => expect(parseGoBool(s)).toBe(false));
  it.each(['yes', 'on', 'tRuE', ' true'])('rejects %j', (s) => expect(parseGoBool(s)).toBeUndefined());
});

describe('boolAnnotation', () => {
  it('uses the fallback when absent or empty', () => {
    expect(boolAnnotation(undefined, UPGRADE_FORCE, false)).toEqual({ value: false });
    expect(boolAnnotation({ [UPGRADE_FORCE]: '' }, UPGRADE_FORCE, true)).toEqual({ value: true });
  });
  describe('when the value is not a Go boolean', () => {
    it('falls back and warns, naming the annotation and the value', () => {
      const r = boolAnnotation({ [UPGRADE_FORCE]: 'yes' }, UPGRADE_FORCE, false);
      expect(r.value).toBe(false);
      expect(r.warning).toContain('helm.sdk.operatorframework.io/upgrade-force="yes"');
    });
  });
});

describe('reconcilePeriod', () => {
  it('prefers a valid annotation', () => {
    expect(reconcilePeriod({ [RECONCILE_PERIOD]: '3s' }, 60_000)).toEqual({ value: 3000 });
    expect(reconcilePeriod({ [RECONCILE_PERIOD]: '0' }, 60_000)).toEqual({ value: 0 });
  });
  it('uses the fallback when the annotation is absent', () => {
    expect(reconcilePeriod({}, 60_000)).toEqual({ value: 60_000 });
  });
  it.each(['4x', '-1s', ''])('falls back and warns for %j', (raw) => {
    const r = reconcilePeriod({ [RECONCILE_PERIOD]: raw }, 60_000);
    expect(r.value).toBe(60_000);
    expect(r.warning).toContain(RECONCILE_PERIOD);
  });
});
