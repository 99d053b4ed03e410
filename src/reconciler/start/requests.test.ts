// reconcile-requested-at and force-upgrade-at: which values are pending, what a reconcile records as handled, and
// that the handled values survive every status the reconciler writes (and a round trip through readStatus).
import { describe, expect, it } from 'vitest';
import { conditions } from '../../conditions/condition-catalogue.js';
import {
  deployedStatus,
  failedStatus,
  readStatus,
  sameStatus,
  startingStatus,
  uninstalledStatus,
} from '../status/status.js';
import type { CustomResource, HelmAppStatus } from '../types.js';
import { PAUSED, pausedStatus } from './pause.js';
import {
  awaitsManualAction,
  FORCE_UPGRADE_AT,
  forceHandled,
  pendingRequests,
  RECONCILE_REQUESTED_AT,
  reconcileHandled,
  withHandled,
} from './requests.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const empty: HelmAppStatus = { conditions: [] };

describe('pendingRequests', () => {
  it('is empty without the annotations, or with empty values', () => {
    expect(pendingRequests(undefined, empty)).toEqual({});
    expect(pendingRequests({ [RECONCILE_REQUESTED_AT]: '', [FORCE_UPGRADE_AT]: '' }, empty)).toEqual({});
  });

  it('holds each value the status has not recorded as handled, whatever it is', () => {
    const annotations = { [RECONCILE_REQUESTED_AT]: '2026-01-01T10:00:00Z', [FORCE_UPGRADE_AT]: 'any text' };
    expect(pendingRequests(annotations, empty)).toEqual({ reconcileAt: '2026-01-01T10:00:00Z', forceAt: 'any text' });
    const status = { ...empty, lastHandledReconcileAt: 'old', lastHandledForceAt: 'older' };
    expect(pendingRequests(annotations, status)).toEqual({ reconcileAt: '2026-01-01T10:00:00Z', forceAt: 'any text' });
  });

  it('drops a value once the status records it (a request is handled once)', () => {
    const annotations = { [RECONCILE_REQUESTED_AT]: 'a', [FORCE_UPGRADE_AT]: 'b' };
    const status = { ...empty, lastHandledReconcileAt: 'a', lastHandledForceAt: 'b' };
    expect(pendingRequests(annotations, status)).toEqual({});
  });
});

describe('what a reconcile records', () => {
  it('records the reconcile request, and only it, as handled by running at all', () => {
    expect(reconcileHandled({ reconcileAt: 'a', forceAt: 'b' })).toEqual({ reconcileAt: 'a' });
    expect(reconcileHandled({})).toEqual({});
  });

  it('records the force request once an install or upgrade ran, never when no helm action did', () => {
    expect(forceHandled({ forceAt: 'b' }, 'upgrade')).toEqual({ forceAt: 'b' });
    expect(forceHandled({ forceAt: 'b' }, 'install')).toEqual({ forceAt: 'b' });
    expect(forceHandled({ forceAt: 'b' }, 'none')).toEqual({});
    expect(forceHandled({}, 'upgrade')).toEqual({});
  });

  it('keeps what it does not handle now', () => {
    const status = { ...empty, lastHandledReconcileAt: 'a', lastHandledForceAt: 'b' };
    expect(withHandled(status, { forceAt: 'c' })).toEqual({ ...status, lastHandledForceAt: 'c' });
    expect(withHandled(status, {})).toEqual(status);
  });
});

describe('the handled requests in the status', () => {
  const handled = withHandled(empty, { reconcileAt: 'a', forceAt: 'b' });
  const release = { name: 'web', revision: 1 };

  it('survive readStatus, and a change of either is a status to write', () => {
    expect(readStatus(JSON.parse(JSON.stringify(handled)))).toEqual(handled);
    expect(readStatus({ conditions: [], lastHandledReconcileAt: 3, lastHandledForceAt: '' })).toEqual(empty);
    expect(sameStatus(handled, withHandled(handled, { reconcileAt: 'z' }))).toBe(false);
  });

  it('are kept by every status the reconciler builds from the one before', () => {
    const kept = { lastHandledReconcileAt: 'a', lastHandledForceAt: 'b' };
    const started = startingStatus(handled, 2);
    expect(started).toMatchObject(kept);
    expect(deployedStatus(started, 'InstallSuccessful', '', release, NOW)).toMatchObject(kept);
    expect(failedStatus(started, conditions.releaseFailed('UpgradeError', 'boom'), NOW)).toMatchObject(kept);
    expect(uninstalledStatus(started, NOW)).toMatchObject(kept);
  });
});

describe('awaitsManualAction', () => {
  const cr = (annotations: Record<string, string>, status: HelmAppStatus = empty): CustomResource => ({
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Nginx',
    metadata: { name: 'web', namespace: 'apps', annotations },
    status,
  });
  const paused = pausedStatus(empty, NOW);

  it('is true while a pause, a resume or a request is not recorded in the status', () => {
    expect(awaitsManualAction(cr({ [PAUSED]: 'true' }))).toBe(true);
    expect(awaitsManualAction(cr({}, paused))).toBe(true);
    expect(awaitsManualAction(cr({ [RECONCILE_REQUESTED_AT]: 'a' }))).toBe(true);
    expect(awaitsManualAction(cr({ [FORCE_UPGRADE_AT]: 'b' }))).toBe(true);
  });

  it('is false once the status records them (the informer copy is then good enough)', () => {
    expect(awaitsManualAction(cr({}))).toBe(false);
    expect(awaitsManualAction(cr({ [PAUSED]: 'true' }, paused))).toBe(false);
    const handled = withHandled(empty, { reconcileAt: 'a', forceAt: 'b' });
    expect(awaitsManualAction(cr({ [RECONCILE_REQUESTED_AT]: 'a', [FORCE_UPGRADE_AT]: 'b' }, handled))).toBe(false);
  });
});
