// The reconciler with the manual-control annotations: `paused` (no helm, no drift repair, Paused and its events
// once each, deletion as usual, what changed applied on resume), `reconcile-requested-at` (recorded once, failures
// included) and `force-upgrade-at` (one upgrade with nothing changed, recorded even when it fails).
import { describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { RetryLaterError } from '../core/errors.js';
import { HelmCommandError } from '../helm/errors.js';
import { HelmReconciler } from './reconciler.js';
import { PAUSED } from './start/pause.js';
import { FORCE_UPGRADE_AT, RECONCILE_REQUESTED_AT } from './start/requests.js';
import type { CrAccess, CustomResource, HelmAppStatus } from './types.js';

/** One CR "apps/web" with the sample chart; helm faked with a history; drift repair counted. */
function world() {
  const store = new CrStore(nginxCr({ replicaCount: 1 }));
  /** What the next get() returns instead of the CR: an informer copy that lags a write. */
  let lagging: CustomResource | undefined;
  const crs: CrAccess = {
    ...store.access,
    async get() {
      const copy = lagging ?? store.cr;
      lagging = undefined;
      return copy;
    },
    latest: async () => store.cr,
  };
  const { helm, history } = helmWithHistory();
  const events: string[] = [];
  const repairs: boolean[] = [];
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      watch: { watchDependentResources: true },
      events: { event: (_cr, type, reason) => events.push(`${type}:${reason}`) },
      crs,
      releases: { history: async () => history.list() },
      helm,
      dependents: {
        afterDeploy: async (_cr, _manifest, changed) => {
          repairs.push(changed);
          return { status: 'True', reason: 'AllObjectsReady', message: '1 objects ready' };
        },
        forget: () => {},
      },
    }),
  );
  const live = () => store.live();
  const signal = new AbortController().signal;
  return {
    events,
    /** afterDeploy calls: false when no helm action ran (drift repair), true after one. */
    repairs,
    history,
    get helmCalls() {
      return helm.calls.map((c) => c.command).filter((c) => c !== 'version');
    },
    get cr() {
      return store.cr;
    },
    get status() {
      return live().status as HelmAppStatus;
    },
    condition: (type: string) => (live().status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === type),
    annotate(annotations: Record<string, string | undefined>) {
      const o = live();
      const next = { ...o.metadata.annotations, ...annotations };
      for (const [k, v] of Object.entries(next)) if (v === undefined) delete next[k];
      store.bump(o, { metadata: { ...o.metadata, annotations: next as Record<string, string> } });
    },
    setSpec(spec: unknown) {
      const o = live();
      store.bump(o, { spec, metadata: { ...o.metadata, generation: (o.metadata.generation ?? 0) + 1 } });
    },
    /** The next read of the informer's copy gets `copy`, as when the echo of our last write is still on its way. */
    lagNextRead(copy: CustomResource | undefined) {
      lagging = copy;
    },
    markDeleted() {
      const o = live();
      store.bump(o, { metadata: { ...o.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } });
    },
    failNextUpgrade() {
      const err = new HelmCommandError({
        command: 'upgrade',
        release: 'web',
        namespace: 'apps',
        args: ['upgrade'],
        exitCode: 1,
        signal: undefined,
        stderr: 'Error: UPGRADE FAILED: cannot patch Deployment',
        canceled: false,
        timedOut: false,
        forceKilled: false,
      });
      helm.failNext('upgrade', err, (p) => history.recordFailed(p));
    },
    reconcile: () => reconciler.reconcile('apps/web', signal),
  };
}

describe('HelmReconciler with the paused annotation', () => {
  it('runs no helm and no drift repair, writes Paused with one ReconcilePaused event, and asks for no requeue', async () => {
    const w = world();
    await w.reconcile();
    w.annotate({ [PAUSED]: 'true' });
    w.setSpec({ replicaCount: 3 });
    expect(await w.reconcile()).toEqual({});
    expect(await w.reconcile()).toEqual({}); // a dependent's event, say
    expect(w.helmCalls).toEqual(['install']);
    expect(w.repairs).toEqual([true]);
    expect(w.condition('Paused')).toMatchObject({ status: 'True', reason: 'PausedByAnnotation' });
    expect(w.condition('Paused')?.message).toContain(PAUSED);
    expect(w.condition('Deployed')).toMatchObject({ status: 'True', reason: 'InstallSuccessful' });
    expect(w.status.observedGeneration).toBe(1); // the new spec was not looked at
    expect(w.events.filter((e) => e.includes('Paused'))).toEqual(['Normal:ReconcilePaused']);
  });

  it('resumes when the annotation goes or is "false": removes Paused, one ReconcileResumed, upgrades what changed', async () => {
    for (const resume of [undefined, 'false']) {
      const w = world();
      await w.reconcile();
      w.annotate({ [PAUSED]: 'T' });
      w.setSpec({ replicaCount: 3 });
      await w.reconcile();
      w.annotate({ [PAUSED]: resume });
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      await w.reconcile();
      expect(w.helmCalls).toEqual(['install', 'upgrade']);
      expect(w.condition('Paused')).toBeUndefined();
      expect(w.condition('Deployed')).toMatchObject({ reason: 'UpgradeSuccessful' });
      expect(w.status).toMatchObject({ observedGeneration: 2, deployedRelease: { revision: 2 } });
      expect(w.repairs).toEqual([true, true, false]); // drift repair is back
      expect(w.events.filter((e) => e.includes('Paused') || e.includes('Resumed'))).toEqual([
        'Normal:ReconcilePaused',
        'Normal:ReconcileResumed',
      ]);
    }
  });

  it('still uninstalls a CR deleted while paused, and frees it', async () => {
    const w = world();
    await w.reconcile();
    w.annotate({ [PAUSED]: 'true' });
    await w.reconcile();
    w.markDeleted();
    expect(await w.reconcile()).toEqual({});
    expect(w.helmCalls).toEqual(['install', 'uninstall']);
    expect(w.cr).toBeUndefined();
  });

  it('takes an invalid value as not paused, with an InvalidAnnotation warning', async () => {
    const w = world();
    w.annotate({ [PAUSED]: 'yes' });
    await w.reconcile();
    expect(w.helmCalls).toEqual(['install']);
    expect(w.condition('Paused')).toBeUndefined();
    expect(w.events).toContain('Warning:InvalidAnnotation');
  });

  it('handles neither request while paused, and both on resume with a single upgrade', async () => {
    const w = world();
    await w.reconcile();
    w.annotate({ [PAUSED]: 'true', [FORCE_UPGRADE_AT]: 'f1', [RECONCILE_REQUESTED_AT]: 'r1' });
    await w.reconcile();
    expect(w.helmCalls).toEqual(['install']);
    expect(w.status.lastHandledForceAt).toBeUndefined();
    expect(w.status.lastHandledReconcileAt).toBeUndefined();
    w.annotate({ [PAUSED]: undefined });
    await w.reconcile();
    await w.reconcile();
    expect(w.helmCalls).toEqual(['install', 'upgrade']);
    expect(w.status).toMatchObject({ lastHandledForceAt: 'f1', lastHandledReconcileAt: 'r1' });
  });
});

describe('HelmReconciler with reconcile-requested-at', () => {
  it('records the value once: that reconcile repairs drift without helm, and the same value changes nothing', async () => {
    const w = world();
    await w.reconcile();
    w.annotate({ [RECONCILE_REQUESTED_AT]: '2026-01-01T10:00:00Z' });
    await w.reconcile();
    expect(w.status.lastHandledReconcileAt).toBe('2026-01-01T10:00:00Z');
    expect(w.helmCalls).toEqual(['install']);
    expect(w.repairs).toEqual([true, false]);
    const written = w.cr?.metadata.resourceVersion;
    await w.reconcile();
    expect(w.cr?.metadata.resourceVersion).toBe(written); // nothing left to write
    w.annotate({ [RECONCILE_REQUESTED_AT]: 'again' });
    await w.reconcile();
    expect(w.status.lastHandledReconcileAt).toBe('again');
  });

  it('records it on a failed reconcile too (the failure is what it found)', async () => {
    const w = world();
    await w.reconcile();
    w.setSpec({ replicaCount: 2 });
    w.annotate({ [RECONCILE_REQUESTED_AT]: 'now' });
    w.failNextUpgrade();
    await expect(w.reconcile()).rejects.toBeInstanceOf(RetryLaterError);
    expect(w.status).toMatchObject({ lastHandledReconcileAt: 'now', failures: 1 });
  });
});

describe('HelmReconciler with force-upgrade-at', () => {
  it('upgrades once with the spec unchanged, records the value, and does not upgrade for the same value', async () => {
    const w = world();
    await w.reconcile();
    w.annotate({ [FORCE_UPGRADE_AT]: '1' });
    await w.reconcile();
    expect(w.helmCalls).toEqual(['install', 'upgrade']);
    expect(w.history.revisions).toHaveLength(2);
    expect(w.status).toMatchObject({ lastHandledForceAt: '1', deployedRelease: { revision: 2 } });
    expect(w.condition('Deployed')).toMatchObject({ reason: 'UpgradeSuccessful' });
    w.annotate({ [RECONCILE_REQUESTED_AT]: 'later' }); // another reconcile, same force value
    await w.reconcile();
    expect(w.helmCalls).toEqual(['install', 'upgrade']);
  });

  it('on a CR without a release, records the value after the install (no upgrade on top)', async () => {
    const w = world();
    w.annotate({ [FORCE_UPGRADE_AT]: 'first' });
    await w.reconcile();
    await w.reconcile();
    expect(w.helmCalls).toEqual(['install']);
    expect(w.status.lastHandledForceAt).toBe('first');
  });

  it('records a forced upgrade that failed (rolled back, ReleaseFailed) and does not force it again', async () => {
    const w = world();
    await w.reconcile();
    w.annotate({ [FORCE_UPGRADE_AT]: '1' });
    w.failNextUpgrade();
    await expect(w.reconcile()).rejects.toBeInstanceOf(RetryLaterError);
    expect(w.helmCalls).toEqual(['install', 'upgrade', 'rollback']);
    expect(w.status.lastHandledForceAt).toBe('1');
    expect(w.condition('ReleaseFailed')).toMatchObject({ reason: 'UpgradeError' });
    await w.reconcile(); // the retry: the rolled-back release is as wanted
    expect(w.helmCalls).toEqual(['install', 'upgrade', 'rollback']);
    expect(w.condition('ReleaseFailed')).toBeUndefined();
  });
});

describe('HelmReconciler when the informer lags its own last status write', () => {
  it('decides a force request, a pause and a resume on the API server copy: one upgrade, one event each', async () => {
    const w = world();
    await w.reconcile();
    const twice = async (annotations: Record<string, string | undefined>) => {
      w.annotate(annotations);
      const before = w.cr;
      await w.reconcile();
      w.lagNextRead(before); // e.g. a dependent's change during that reconcile, reconciled before the status echo
      await w.reconcile();
    };
    await twice({ [FORCE_UPGRADE_AT]: '1' });
    expect(w.helmCalls).toEqual(['install', 'upgrade']);
    await twice({ [PAUSED]: 'true' });
    await twice({ [PAUSED]: undefined });
    expect(w.events.filter((e) => e.includes('Paused') || e.includes('Resumed'))).toEqual([
      'Normal:ReconcilePaused',
      'Normal:ReconcileResumed',
    ]);
    expect(w.helmCalls).toEqual(['install', 'upgrade']);
  });
});
