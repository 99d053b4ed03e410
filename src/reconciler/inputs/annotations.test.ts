import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, parseGoBool } from './annotation-catalogue.js';
import {
  HELM_TIMEOUT,
  helmTimeout,
  parsedAnnotation,
  RECONCILE_PERIOD,
  reconcilePeriod,
  releaseOptions,
  UPGRADE_FORCE,
} from './annotations.js';

describe('parseGoBool', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('reads %s as true', (s) => expect(parseGoBool(s)).toBe(true));
  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('reads %s as false', (s) => expect(parseGoBool(s)).toBe(false));
  it.each(['yes', 'on', 'tRuE', ' true'])('rejects %j', (s) => expect(parseGoBool(s)).toBeUndefined());
});

describe('a boolean annotation', () => {
  const force = ANNOTATIONS.upgradeForce;
  it('uses the fallback when absent or empty', () => {
    expect(parsedAnnotation(undefined, force, false)).toEqual({ value: false });
    expect(parsedAnnotation({ [UPGRADE_FORCE]: '' }, force, true)).toEqual({ value: true });
  });
  describe('when the value is not a Go boolean', () => {
    it('falls back and warns, naming the annotation and the value', () => {
      const r = parsedAnnotation({ [UPGRADE_FORCE]: 'yes' }, force, false);
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

describe('helmTimeout', () => {
  it('prefers a valid annotation over the fallback', () => {
    expect(helmTimeout({ [HELM_TIMEOUT]: '20s' }, 120_000)).toEqual({ value: 20_000 });
  });
  it('uses the fallback when the annotation is absent', () => {
    expect(helmTimeout({}, 120_000)).toEqual({ value: 120_000 });
  });
  it.each(['4x', '0', '-1m', '25h', ''])('falls back and warns for %j, naming the annotation and the value', (raw) => {
    const r = helmTimeout({ [HELM_TIMEOUT]: raw }, 120_000);
    expect(r.value).toBe(120_000);
    expect(r.warning).toContain(`${HELM_TIMEOUT}=${JSON.stringify(raw)}`);
    expect(r.warning).toContain('using the default');
  });
});

describe('releaseOptions.helmTimeoutMs', () => {
  it("takes the CR's annotation first, then the watch's helmTimeout, then helm's 5m", () => {
    const annotated = { [HELM_TIMEOUT]: '20s' };
    expect(releaseOptions(annotated, { helmTimeoutMs: 120_000 }).helmTimeoutMs).toBe(20_000);
    expect(releaseOptions({}, { helmTimeoutMs: 120_000 }).helmTimeoutMs).toBe(120_000);
    expect(releaseOptions(undefined).helmTimeoutMs).toBe(300_000);
  });
  it("reports an invalid annotation among the CR's warnings and uses the watch's value", () => {
    const r = releaseOptions({ [HELM_TIMEOUT]: 'soon' }, { helmTimeoutMs: 120_000 });
    expect(r.helmTimeoutMs).toBe(120_000);
    expect(r.warnings).toEqual([expect.stringContaining(HELM_TIMEOUT)]);
  });
});
