// The deletion of one CR through the uninstall queue's in-process lanes: no helm process, the CR's own event, status
// and finalizer; a declined release goes to helm, a failure is reported on the CR with backoff.
import { describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../../test/fakes/reconciler.js';
import { RetryLaterError } from '../../core/errors.js';
import { UninstallFailedError } from '../../uninstall/errors.js';
import { uninstallQueue } from '../../uninstall/queue.js';
import type { UninstallOutcome, UninstallRequest } from '../../uninstall/uninstaller.js';
import { HelmReconciler } from '../reconciler.js';
import type { HelmAppStatus } from '../types.js';

/** One deployed CR marked for deletion, and an uninstaller that answers `answer` (and clears the history if done). */
async function deleting(answer: (r: UninstallRequest) => Promise<UninstallOutcome>) {
  const { helm, history } = helmWithHistory({ manifestOf: (v) => `manifest v${v}` });
  const store = new CrStore(nginxCr({ replicaCount: 1 }));
  const asked: UninstallRequest[] = [];
  const recorded: string[] = [];
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      crs: store.access,
      releases: { history: async () => history.revisions },
      helm,
      events: { event: (_cr, type, reason, message) => recorded.push(`${type}:${reason}:${message}`) },
      uninstalls: uninstallQueue({
        uninstaller: {
          takes: () => true,
          uninstall: async (r) => {
            asked.push(r);
            const outcome = await answer(r);
            if (outcome === 'uninstalled') history.clear();
            return outcome;
          },
        },
      }),
    }),
  );
  const signal = new AbortController().signal;
  await reconciler.reconcile('apps/web', signal);
  store.markDeleted();
  const helmUninstalls = () => helm.calls.filter((c) => c.command === 'uninstall').length;
  return { store, asked, recorded, helmUninstalls, reconcile: () => reconciler.reconcile('apps/web', signal) };
}

const condition = (status: unknown, type: string) =>
  (status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === type);

describe('the deletion of a CR whose release the in-process uninstall takes', () => {
  it('runs no helm process, and reports and finishes the CR as a helm uninstall does', async () => {
    const w = await deleting(async () => 'uninstalled');
    expect(await w.reconcile()).toEqual({});
    expect(w.helmUninstalls()).toBe(0);
    expect(w.asked.map((r) => [r.newest.name, r.newest.version, r.namespace, r.disableHooks])).toEqual([
      ['web', 1, 'apps', false],
    ]);
    expect(w.recorded).toContain('Normal:UninstallSucceeded:Uninstalled release web');
    expect(w.store.cr).toBeUndefined(); // finalizer removed
  });

  it('runs helm uninstall for a release it declines', async () => {
    const w = await deleting(async () => ({ declined: 'the release has delete hooks to run' }));
    expect(await w.reconcile()).toEqual({});
    expect(w.helmUninstalls()).toBe(1);
    expect(w.store.cr).toBeUndefined();
  });

  it('reports its failure on the CR, keeps the finalizer and retries with backoff', async () => {
    const w = await deleting(async () => {
      throw new UninstallFailedError('failed to delete release web: Deployment apps/web: 403 Forbidden');
    });
    const err = await w.reconcile().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err).toMatchObject({ retryAfterMs: 10_000, code: 'UNINSTALL_FAILED' });
    expect(w.helmUninstalls()).toBe(0);
    expect(condition(w.store.cr?.status, 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'UninstallError' });
    expect(condition(w.store.cr?.status, 'ReleaseFailed')?.message).toContain('Deployment apps/web: 403 Forbidden');
    expect(w.recorded.some((e) => e.startsWith('Warning:UninstallFailed:'))).toBe(true);
    expect(w.store.cr?.metadata.finalizers?.length).toBe(1);
  });
});
