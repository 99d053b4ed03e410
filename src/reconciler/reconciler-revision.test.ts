// status.deployedRelease (the REVISION column) after failures: the release deployed after the remediation, never the
// last one this operator installed or upgraded to: a rollback's new revision, none once a failed install is gone,
// and the old one when the rollback failed too.
import { describe, expect, it } from 'vitest';
import { helmCommandError, helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import type { InstallParams, UpgradeParams } from '../helm/types.js';
import { HelmReconciler } from './reconciler.js';
import type { HelmAppStatus } from './types.js';

function world() {
  const store = new CrStore(nginxCr({ replicaCount: 1 }));
  const { helm, history } = helmWithHistory({ manifestOf: (v) => `manifest v${v}` });
  const reconciler = new HelmReconciler(
    reconcilerOptions({ crs: store.access, releases: { history: async () => history.list() }, helm }),
  );
  const signal = new AbortController().signal;
  let generation = 1;
  return {
    helm,
    history,
    status: () => store.live().status as HelmAppStatus,
    reconcile: () => reconciler.reconcile('apps/web', signal).catch((err: unknown) => err),
    /** A new spec (a new generation), as an edit of the CR gives. */
    setSpec(spec: unknown) {
      const cr = store.live();
      generation += 1;
      store.cr = { ...cr, metadata: { ...cr.metadata, generation }, spec };
    },
    /** The next `command` fails; past rendering, helm first records a failed revision. */
    failNext(command: 'install' | 'upgrade' | 'rollback', recorded = true) {
      const err = helmCommandError(command, `Error: ${command.toUpperCase()} FAILED: the API server said no`);
      helm.failNext(command, err, (p: InstallParams | UpgradeParams) => {
        if (recorded && command !== 'rollback') history.recordFailed(p);
      });
    },
    revisions: () => history.list().map((h) => `${h.release.version}:${h.release.info.status}`),
  };
}

describe('status.deployedRelease after failures', () => {
  it("is the rollback's revision after each failed upgrade, and the new one once an upgrade succeeds", async () => {
    const w = world();
    await w.reconcile();
    w.setSpec({ replicaCount: 2 });
    await w.reconcile();
    expect(w.status().deployedRelease?.revision).toBe(2);
    for (const replicaCount of [3, 4]) {
      w.setSpec({ replicaCount });
      w.failNext('upgrade');
      await w.reconcile();
    }
    // 3 and 5 the failed upgrades, 4 and 6 the rollbacks to 2.
    expect(w.revisions()).toEqual([
      '1:superseded',
      '2:superseded',
      '3:failed',
      '4:superseded',
      '5:failed',
      '6:deployed',
    ]);
    expect(w.status().deployedRelease).toEqual({ name: 'web', revision: 6, manifest: 'manifest v2' });
    expect(w.status().conditions.find((c) => c.type === 'ReleaseFailed')?.reason).toBe('UpgradeError');

    w.setSpec({ replicaCount: 5 });
    await w.reconcile();
    expect(w.status().deployedRelease?.revision).toBe(7);
    expect(w.status().conditions.find((c) => c.type === 'ReleaseFailed')).toBeUndefined();
  });

  it('keeps the deployed revision when the rollback failed too (helm recorded nothing deployed since)', async () => {
    const w = world();
    await w.reconcile();
    w.setSpec({ replicaCount: 2 });
    w.failNext('upgrade');
    w.failNext('rollback');
    await w.reconcile();
    expect(w.revisions()).toEqual(['1:deployed', '2:failed']);
    expect(w.status().deployedRelease?.revision).toBe(1);
  });

  it('has none once a failed install was uninstalled, even when the status showed an older release', async () => {
    const w = world();
    await w.reconcile();
    w.history.revisions.length = 0; // `helm uninstall` by hand
    w.failNext('install');
    await w.reconcile();
    expect(w.revisions()).toEqual([]);
    expect(w.status().deployedRelease).toBeUndefined();
    expect(w.status().conditions.find((c) => c.type === 'ReleaseFailed')?.reason).toBe('InstallError');
  });

  it('keeps what it showed when the records cannot be read after the failure', async () => {
    const store = new CrStore(nginxCr({ replicaCount: 1 }));
    const { helm, history } = helmWithHistory();
    let readable = true;
    const releases = {
      history: async () => {
        if (!readable) throw new Error('the API server is away');
        return history.list();
      },
    };
    const reconciler = new HelmReconciler(reconcilerOptions({ crs: store.access, releases, helm }));
    const signal = new AbortController().signal;
    await reconciler.reconcile('apps/web', signal);
    const cr = store.live();
    store.cr = { ...cr, metadata: { ...cr.metadata, generation: 2 }, spec: { replicaCount: 2 } };
    helm.failNext('upgrade', helmCommandError('upgrade', 'Error: UPGRADE FAILED: no'), () => {
      readable = false; // from the rollback's check on
    });
    await reconciler.reconcile('apps/web', signal).catch(() => undefined);
    const status = store.live().status as HelmAppStatus;
    expect(status.deployedRelease?.revision).toBe(1);
    expect(status.conditions.find((c) => c.type === 'ReleaseFailed')?.reason).toBe('UpgradeError');
  });
});
