import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import { FINGERPRINT_LABEL, releaseState, summaryOf } from './release-state.js';
import type { StoredRelease } from './types.js';

type Release = StoredRelease['release'];
const rev = (version: number, status: Release['info']['status'], chart = 'nginx'): Release =>
  releaseRecord({ version, info: { status }, chart: { name: chart, version: '0.1.0' } });
const stored = (release: Release, fingerprint?: string): StoredRelease => ({
  release,
  labels: fingerprint ? { [FINGERPRINT_LABEL]: fingerprint } : {},
});
const named = (history: StoredRelease[], fingerprint?: string) =>
  releaseState({ history, chart: 'nginx', ...(fingerprint === undefined ? {} : { fingerprint }) }).state;

describe('releaseState', () => {
  it('names a release without any record Absent', () => {
    expect(named([], 'a')).toBe('Absent');
  });

  it('names a release whose newest record is another chart’s Unmanaged, even when pending or deployed', () => {
    expect(named([stored(rev(1, 'deployed', 'redis'), 'a')], 'a')).toBe('Unmanaged');
    expect(named([stored(rev(1, 'deployed')), stored(rev(2, 'pending-upgrade', 'redis'))], 'a')).toBe('Unmanaged');
  });

  it('names a release whose newest record is pending-* Locked', () => {
    expect(named([stored(rev(1, 'pending-install'))], 'a')).toBe('Locked');
    expect(named([stored(rev(1, 'deployed'), 'a'), stored(rev(2, 'pending-upgrade'), 'a')], 'a')).toBe('Locked');
  });

  it('names a release with records but none deployed Failed', () => {
    expect(named([stored(rev(1, 'failed'), 'a')], 'a')).toBe('Failed');
  });

  it('names a deployed newest record without a fingerprint label Unadopted (the adoption check)', () => {
    expect(named([stored(rev(3, 'deployed'))], 'a')).toBe('Unadopted');
  });

  it('names a release deployed from other inputs, or with a failed upgrade on top, OutOfSync', () => {
    expect(named([stored(rev(1, 'deployed'), 'a')], 'b')).toBe('OutOfSync');
    expect(named([stored(rev(1, 'deployed'), 'a'), stored(rev(2, 'failed'), 'a')], 'a')).toBe('OutOfSync');
    expect(named([stored(rev(1, 'deployed'), 'a')])).toBe('OutOfSync'); // deletion: no fingerprint to compare
  });

  it('names a release deployed from these very inputs InSync', () => {
    expect(named([stored(rev(1, 'deployed'), 'a')], 'a')).toBe('InSync');
  });

  it('names a recovered release from its summary read again, neither Unmanaged nor Locked again', () => {
    const history = [stored(rev(2, 'deployed'), 'a'), stored(rev(3, 'pending-upgrade'), 'a')];
    const rolledBack = rev(4, 'deployed');
    const recovered = { latest: rolledBack, deployed: rolledBack, pending: false };
    const state = releaseState({ history, chart: 'nginx', fingerprint: 'a', recovered });
    expect(state).toEqual({ state: 'OutOfSync', history, summary: recovered });
  });

  it('returns the records and the summary it named the state from', () => {
    const history = [stored(rev(1, 'deployed'), 'a')];
    expect(releaseState({ history, chart: 'nginx', fingerprint: 'a' })).toEqual({
      state: 'InSync',
      history,
      summary: summaryOf(history),
    });
    expect(summaryOf(history)).toEqual({ latest: history[0]?.release, deployed: history[0]?.release, pending: false });
  });
});
