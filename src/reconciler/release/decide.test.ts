import { describe, expect, it } from 'vitest';
import type { StoredRelease } from '../../records/types.js';
import { FINGERPRINT_LABEL } from '../inputs/fingerprint.js';
import { AdoptionCheckError } from './adoption.js';
import {
  actionForState,
  decideReleaseAction,
  failedStepCondition,
  failureReason,
  releaseState,
  successReason,
} from './decide.js';

type Release = StoredRelease['release'];
const rev = (version: number, status: Release['info']['status']): Release => ({
  name: 'web',
  namespace: 'apps',
  version,
  info: { status },
  chart: { name: 'nginx', version: '0.1.0' },
  config: {},
  manifest: '',
});
const stored = (release: Release, fingerprint?: string): StoredRelease => ({
  release,
  labels: fingerprint ? { [FINGERPRINT_LABEL]: fingerprint } : {},
});

describe('decideReleaseAction', () => {
  it('installs when no revision is deployed', () => {
    expect(decideReleaseAction({ state: { pending: false }, history: [], fingerprint: 'a' })).toBe('install');
    const failed = rev(1, 'failed');
    const history = [stored(failed, 'a')];
    expect(decideReleaseAction({ state: { latest: failed, pending: false }, history, fingerprint: 'a' })).toBe(
      'install',
    );
  });

  it('does nothing when the deployed revision is the latest and has the same fingerprint', () => {
    const deployed = rev(1, 'deployed');
    const state = { latest: deployed, deployed, pending: false };
    expect(decideReleaseAction({ state, history: [stored(deployed, 'a')], fingerprint: 'a' })).toBe('none');
  });

  it('upgrades when the fingerprint differs, or a later revision failed', () => {
    const deployed = rev(1, 'deployed');
    const state = { latest: deployed, deployed, pending: false };
    expect(decideReleaseAction({ state, history: [stored(deployed, 'a')], fingerprint: 'b' })).toBe('upgrade');
    const failed = rev(2, 'failed');
    const later = { latest: failed, deployed, pending: false };
    const history = [stored(deployed, 'a'), stored(failed, 'a')];
    expect(decideReleaseAction({ state: later, history, fingerprint: 'a' })).toBe('upgrade');
    // A failed upgrade on top of an unlabelled release: upgraded, no check (operator-sdk drops the failed one).
    expect(decideReleaseAction({ state: later, history: [stored(deployed), stored(failed)], fingerprint: 'a' })).toBe(
      'upgrade',
    );
  });

  it('checks a deployed release whose record has no fingerprint at all (operator-sdk installed it) before anything', () => {
    const deployed = rev(3, 'deployed');
    const state = { latest: deployed, deployed, pending: false };
    expect(decideReleaseAction({ state, history: [stored(deployed)], fingerprint: 'a' })).toBe('check');
    expect(releaseState({ state, history: [stored(deployed)], fingerprint: 'a' })).toBe('Unadopted');
  });

  it('upgrades a release whose state was read again after a recovery (its record is not in the history read)', () => {
    const rolledBack = rev(4, 'deployed');
    const state = { latest: rolledBack, deployed: rolledBack, pending: false };
    const history = [stored(rev(2, 'deployed')), stored(rev(3, 'pending-upgrade'))];
    expect(decideReleaseAction({ state, history, fingerprint: 'a' })).toBe('upgrade');
  });

  it('upgrades an unlabelled release without a check when an upgrade is forced', () => {
    const deployed = rev(1, 'deployed');
    const state = { latest: deployed, deployed, pending: false };
    expect(decideReleaseAction({ state, history: [stored(deployed)], fingerprint: 'a', force: true })).toBe('upgrade');
  });
});

describe('decideReleaseAction with a force-upgrade-at request pending', () => {
  it('upgrades a release that is as wanted, and still installs one that has no deployed revision', () => {
    const deployed = rev(1, 'deployed');
    const state = { latest: deployed, deployed, pending: false };
    const history = [stored(deployed, 'a')];
    expect(decideReleaseAction({ state, history, fingerprint: 'a', force: true })).toBe('upgrade');
    expect(decideReleaseAction({ state, history, fingerprint: 'a', force: false })).toBe('none');
    expect(decideReleaseAction({ state: { pending: false }, history: [], fingerprint: 'a', force: true })).toBe(
      'install',
    );
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
    expect(releaseState({ state: { pending: false }, history: [], fingerprint: 'a' })).toBe('Absent');
    expect(
      releaseState({ state: { latest: failed, pending: false }, history: [stored(failed, 'a')], fingerprint: 'a' }),
    ).toBe('Failed');
    const synced = { state: { latest: deployed, deployed, pending: false }, history: [stored(deployed, 'a')] };
    expect(releaseState({ ...synced, fingerprint: 'a' })).toBe('InSync');
    expect(releaseState({ ...synced, fingerprint: 'b' })).toBe('OutOfSync');
    const onTop = { latest: upgradeFailed, deployed, pending: false };
    expect(releaseState({ state: onTop, history: [stored(deployed, 'a')], fingerprint: 'a' })).toBe('OutOfSync');
    expect(
      (['Absent', 'Failed', 'Unadopted', 'OutOfSync', 'InSync'] as const).map((s) => [
        actionForState(s, false),
        actionForState(s, true),
      ]),
    ).toEqual([
      ['install', 'install'],
      ['install', 'install'],
      ['check', 'upgrade'],
      ['upgrade', 'upgrade'],
      ['none', 'upgrade'],
    ]);
  });
});
