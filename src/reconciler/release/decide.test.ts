import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../../test/fakes/helm.js';
import { FINGERPRINT_LABEL, releaseState } from '../../records/release-state.js';
import type { StoredRelease } from '../../records/types.js';
import { AdoptionCheckError } from './adoption.js';
import { actionForState, decideReleaseAction, failedStepCondition, failureReason, successReason } from './decide.js';

type Release = StoredRelease['release'];
const rev = (version: number, status: Release['info']['status']): Release =>
  releaseRecord({ version, info: { status }, config: {} });
const chart = 'nginx';
const stored = (release: Release, fingerprint?: string): StoredRelease => ({
  release,
  labels: fingerprint ? { [FINGERPRINT_LABEL]: fingerprint } : {},
});

describe('decideReleaseAction', () => {
  it('installs when no revision is deployed', () => {
    expect(decideReleaseAction({ history: [], chart, fingerprint: 'a' })).toBe('install');
    const failed = rev(1, 'failed');
    const history = [stored(failed, 'a')];
    expect(decideReleaseAction({ history, chart, fingerprint: 'a' })).toBe('install');
  });

  it('does nothing when the deployed revision is the latest and has the same fingerprint', () => {
    const deployed = rev(1, 'deployed');
    expect(decideReleaseAction({ history: [stored(deployed, 'a')], chart, fingerprint: 'a' })).toBe('none');
  });

  it('upgrades when the fingerprint differs, or a later revision failed', () => {
    const deployed = rev(1, 'deployed');
    expect(decideReleaseAction({ history: [stored(deployed, 'a')], chart, fingerprint: 'b' })).toBe('upgrade');
    const failed = rev(2, 'failed');
    const history = [stored(deployed, 'a'), stored(failed, 'a')];
    expect(decideReleaseAction({ history, chart, fingerprint: 'a' })).toBe('upgrade');
    // A failed upgrade on top of an unlabelled release: upgraded, no check (operator-sdk drops the failed one).
    const unlabelled = [stored(deployed), stored(failed)];
    expect(decideReleaseAction({ history: unlabelled, chart, fingerprint: 'a' })).toBe('upgrade');
  });

  it('checks a deployed release whose record has no fingerprint at all (operator-sdk installed it) before anything', () => {
    const deployed = rev(3, 'deployed');
    expect(decideReleaseAction({ history: [stored(deployed)], chart, fingerprint: 'a' })).toBe('check');
    expect(releaseState({ history: [stored(deployed)], chart, fingerprint: 'a' }).state).toBe('Unadopted');
  });

  it('upgrades a release whose state was read again after a recovery (its record is not in the history read)', () => {
    const rolledBack = rev(4, 'deployed');
    const recovered = { latest: rolledBack, deployed: rolledBack, pending: false };
    const history = [stored(rev(2, 'deployed')), stored(rev(3, 'pending-upgrade'))];
    expect(decideReleaseAction({ recovered, history, chart, fingerprint: 'a' })).toBe('upgrade');
  });

  it('upgrades an unlabelled release without a check when an upgrade is forced', () => {
    const deployed = rev(1, 'deployed');
    expect(decideReleaseAction({ history: [stored(deployed)], chart, fingerprint: 'a', force: true })).toBe('upgrade');
  });
});

describe('decideReleaseAction with a force-upgrade-at request pending', () => {
  it('upgrades a release that is as wanted, and still installs one that has no deployed revision', () => {
    const deployed = rev(1, 'deployed');
    const history = [stored(deployed, 'a')];
    expect(decideReleaseAction({ history, chart, fingerprint: 'a', force: true })).toBe('upgrade');
    expect(decideReleaseAction({ history, chart, fingerprint: 'a', force: false })).toBe('none');
    expect(decideReleaseAction({ history: [], chart, fingerprint: 'a', force: true })).toBe('install');
  });
});

describe('failedStepCondition', () => {
  it('makes a failed adoption check Irreconcilable, as operator-sdk makes a failed dry run', () => {
    const failure = new AdoptionCheckError('web', new Error('parse error in deployment.yaml'));
    expect(failedStepCondition('none', failure, failure.message)).toMatchObject({
      type: 'Irreconcilable',
      status: 'True',
    });
    expect(failure.code).toBe('ADOPTION_CHECK_FAILED');
    expect(failure.message).toBe('cannot check release web before adopting it: parse error in deployment.yaml');
  });
});

describe('condition reasons', () => {
  it('names the action taken, or with none, whether the deployed revision is the first', () => {
    expect(successReason('install', 3)).toBe('InstallSuccessful');
    expect(successReason('upgrade', 1)).toBe('UpgradeSuccessful');
    expect(successReason('none', 1)).toBe('InstallSuccessful');
    expect(successReason('none', 2)).toBe('UpgradeSuccessful');
    expect(failureReason('upgrade')).toBe('UpgradeError');
    expect(failureReason('install')).toBe('InstallError');
    expect(failureReason('none')).toBe('InstallError');
  });
});

describe('releaseState and actionForState', () => {
  it('names the release as Flux does, and maps each name to one action', () => {
    const failed = rev(1, 'failed');
    const deployed = rev(1, 'deployed');
    const upgradeFailed = rev(2, 'failed');
    const named = (history: StoredRelease[], fingerprint: string) =>
      releaseState({ history, chart, fingerprint }).state;
    expect(named([], 'a')).toBe('Absent');
    expect(named([stored(failed, 'a')], 'a')).toBe('Failed');
    expect(named([stored(deployed, 'a')], 'a')).toBe('InSync');
    expect(named([stored(deployed, 'a')], 'b')).toBe('OutOfSync');
    expect(named([stored(deployed, 'a'), stored(upgradeFailed, 'a')], 'a')).toBe('OutOfSync');
    const states = ['Absent', 'Failed', 'Unadopted', 'OutOfSync', 'InSync', 'Unmanaged', 'Locked'] as const;
    expect(states.map((s) => [actionForState(s, false), actionForState(s, true)])).toEqual([
      ['install', 'install'],
      ['install', 'install'],
      ['check', 'upgrade'],
      ['upgrade', 'upgrade'],
      ['none', 'upgrade'],
      ['leave', 'leave'],
      ['recover', 'recover'],
    ]);
  });
});
