import { describe, expect, it } from 'vitest';
import type { Condition } from '../../conditions/conditions.js';
import type { HelmAppStatus } from '../types.js';
import { statusWordOf, withStatusWord } from './status.js';

const c = (type: string, status: string, reason = ''): Condition =>
  ({ type, status, reason, lastTransitionTime: 't' }) as Condition;
const deployed = c('Deployed', 'True', 'UpgradeSuccessful');

describe('statusWordOf', () => {
  it.each<[string, Condition[], HelmAppStatus['deployedRelease'] | undefined, string]>([
    [
      'a failed upgrade, though the last good revision is still Deployed',
      [deployed, c('ReleaseFailed', 'True', 'UpgradeError')],
      undefined,
      'UpgradeFailed',
    ],
    ['a failed first install', [c('ReleaseFailed', 'True', 'InstallError')], undefined, 'InstallFailed'],
    ['a failed uninstall', [deployed, c('ReleaseFailed', 'True', 'UninstallError')], undefined, 'UninstallFailed'],
    [
      'inputs that cannot be reconciled',
      [deployed, c('Irreconcilable', 'True', 'ReconcileError')],
      undefined,
      'Irreconcilable',
    ],
    [
      'a pause, over a failure',
      [c('ReleaseFailed', 'True', 'UpgradeError'), c('Paused', 'True', 'PausedByAnnotation')],
      undefined,
      'Paused',
    ],
    ['an upgrade held by the chart rollout', [deployed, c('ChartRollout', 'True', 'Queued')], undefined, 'RolloutHeld'],
    ['a helm run still going', [deployed, c('Reconciling', 'True', 'HelmStillRunning')], undefined, 'HelmRunning'],
    [
      'a deployed release',
      [c('Initialized', 'True'), deployed, c('Ready', 'False', 'NotReady')],
      undefined,
      'Deployed',
    ],
    [
      'an uninstall waiting for its objects',
      [c('Deployed', 'False', 'UninstallSuccessful')],
      { name: 'web' },
      'Uninstalling',
    ],
    ['an uninstalled release', [c('Deployed', 'False', 'UninstallSuccessful')], undefined, 'Uninstalled'],
    ['nothing yet', [c('Initialized', 'True')], undefined, 'Pending'],
  ])('%s is %s', (_, conditions, deployedRelease, want) => {
    expect(statusWordOf({ conditions, ...(deployedRelease ? { deployedRelease } : {}) })).toBe(want);
  });

  it('is what withStatusWord stores, and withStatusWord returns the same object when it is already right', () => {
    const s: HelmAppStatus = { conditions: [deployed] };
    const stored = withStatusWord(s);
    expect(stored).toEqual({ conditions: [deployed], state: 'Deployed' });
    expect(withStatusWord(stored)).toBe(stored);
  });
});
