// The reconciler's helm timeout and slow-run notices: every helm run gets the CR's --timeout (annotation, then the
// watch's helmTimeout, then 5m); a run still going past its threshold records a HelmStillRunning event and writes
// Reconciling=True while helm runs; the outcome's status (Deployed, ReleaseFailed, uninstalled) drops it again.
import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeHelm, HELM_V3, ReleaseHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions, TEST_START_MS } from '../../test/fakes/reconciler.js';
import { HelmCommandError } from '../helm/errors.js';
import type { InstallParams } from '../helm/types.js';
import { HelmReconciler } from './reconciler.js';
import type { CustomResource, HelmAppStatus } from './types.js';

const HELM_TIMEOUT = 'helm.sdk.operatorframework.io/helm-timeout';
const WAIT = { timeout: 5_000, interval: 5 };

/** One CR apps/web; helm's install and uninstall run until the test ends them. */
function world(o: { annotations?: Record<string, string>; watchTimeoutMs?: number } = {}) {
  const writes: string[] = [];
  const events: string[] = [];
  const store = new CrStore(nginxCr({}, { annotations: o.annotations ?? {} }), {
    onStatus: (status) =>
      writes.push(status.conditions.map((c) => `${c.type}:${c.status}:${c.reason ?? ''}`).join(',')),
  });
  const history = new ReleaseHistory({ notes: '' });
  const ends: { install?: (err?: Error) => void; uninstall?: () => void } = {};
  const helm = new FakeHelm()
    .on('version', () => HELM_V3)
    .on('install', (p: InstallParams) => {
      return new Promise((resolve, reject) => {
        ends.install = (err) => (err ? reject(err) : resolve(history.record(p)));
      });
    })
    .on('uninstall', () => new Promise<void>((resolve) => (ends.uninstall = () => resolve(history.clear()))));
  const clock = new FakeClock({ nowMs: TEST_START_MS });
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      watch: o.watchTimeoutMs ? { helmTimeoutMs: o.watchTimeoutMs } : {},
      events: { event: (_cr, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
      crs: store.access,
      releases: { history: async () => history.list() },
      helm,
      clock,
    }),
  );
  const signal = new AbortController().signal;
  return {
    writes,
    events,
    helm,
    clock,
    ends,
    get cr() {
      return store.cr;
    },
    reconcile: () => reconciler.reconcile('apps/web', signal),
    markDeleted: () => store.markDeleted(),
    /** Waits until helm was asked to `command`, then ends nothing. */
    started: (command: 'install' | 'uninstall') => vi.waitFor(() => expect(ends[command]).toBeDefined(), WAIT),
  };
}

const reconciling = (cr: CustomResource | undefined) =>
  (cr?.status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === 'Reconciling');

describe('HelmReconciler, helm timeout', () => {
  it("runs helm with the CR's helm-timeout annotation ahead of the watch's helmTimeout", async () => {
    const w = world({ annotations: { [HELM_TIMEOUT]: '20s' }, watchTimeoutMs: 120_000 });
    const done = w.reconcile();
    await w.started('install');
    w.ends.install?.();
    await done;
    expect(w.helm.callsOf('install').map((p) => p.timeoutMs)).toEqual([20_000]);
  });

  it("uses the watch's helmTimeout without an annotation, and helm's 5m without either", async () => {
    for (const [watchTimeoutMs, expected] of [
      [120_000, 120_000],
      [undefined, 300_000],
    ] as const) {
      const w = world(watchTimeoutMs ? { watchTimeoutMs } : {});
      const done = w.reconcile();
      await w.started('install');
      w.ends.install?.();
      await done;
      expect(w.helm.callsOf('install')[0]?.timeoutMs).toBe(expected);
    }
  });

  it("reports an invalid annotation as InvalidAnnotation and uses the watch's helmTimeout", async () => {
    const w = world({ annotations: { [HELM_TIMEOUT]: 'soon' }, watchTimeoutMs: 120_000 });
    const done = w.reconcile();
    await w.started('install');
    w.ends.install?.();
    await done;
    expect(w.helm.callsOf('install')[0]?.timeoutMs).toBe(120_000);
    expect(w.events).toContainEqual(
      expect.stringMatching(/^Warning InvalidAnnotation: annotation .*helm-timeout="soon"/),
    );
  });
});

describe('HelmReconciler, a helm run that holds the worker', () => {
  it('records HelmStillRunning once and writes Reconciling while helm runs, then drops it with Deployed', async () => {
    const w = world({ annotations: { [HELM_TIMEOUT]: '2m' } });
    const done = w.reconcile();
    await w.started('install');
    w.clock.advance(29_999);
    expect(w.events.filter((e) => e.includes('HelmStillRunning'))).toEqual([]);
    w.clock.advance(60_000);
    await vi.waitFor(() => expect(reconciling(w.cr)?.status).toBe('True'), WAIT);
    const message =
      'helm install of release web has been running for 30s (timeout 2m); hooks or waits are holding a worker';
    expect(w.events.filter((e) => e.includes('HelmStillRunning'))).toEqual([`Normal HelmStillRunning: ${message}`]);
    expect(reconciling(w.cr)).toMatchObject({ reason: 'HelmStillRunning', message });

    w.ends.install?.();
    await done;
    expect(reconciling(w.cr)).toBeUndefined();
    expect(w.writes).toEqual([
      'Reconciling:True:HelmStillRunning',
      'Initialized:True:,Deployed:True:InstallSuccessful',
    ]);
  });

  it('drops Reconciling with ReleaseFailed when helm reports its own timeout', async () => {
    const w = world({ annotations: { [HELM_TIMEOUT]: '20s' } });
    const done = w.reconcile();
    await w.started('install');
    w.clock.advance(5_000);
    await vi.waitFor(() => expect(reconciling(w.cr)?.status).toBe('True'), WAIT);
    const stderr = 'Error: INSTALL FAILED: failed pre-install: timed out waiting for the condition';
    const failure = { command: 'install', release: 'web', namespace: 'apps', args: [], exitCode: 1, stderr };
    const flags = { signal: undefined, canceled: false, timedOut: false, forceKilled: false };
    w.ends.install?.(new HelmCommandError({ ...failure, ...flags }));
    await expect(done).rejects.toMatchObject({ code: 'HELM_COMMAND_FAILED' });
    const conditions = (w.cr?.status as HelmAppStatus | undefined)?.conditions ?? [];
    expect(conditions.map((c) => `${c.type}:${c.reason ?? ''}`)).toEqual([
      'Initialized:',
      'ReleaseFailed:InstallError',
    ]);
    expect(conditions.find((c) => c.type === 'ReleaseFailed')?.message).toContain(
      'timed out waiting for the condition',
    );
  });

  it('reports a slow uninstall of a deleted CR too, with its timeout, and ends with the uninstalled status', async () => {
    const w = world({ annotations: { [HELM_TIMEOUT]: '1m' } });
    const installed = w.reconcile();
    await w.started('install');
    w.ends.install?.();
    await installed;
    w.markDeleted();
    const deleting = w.reconcile();
    await w.started('uninstall');
    w.clock.advance(15_000);
    await vi.waitFor(() => expect(reconciling(w.cr)?.status).toBe('True'), WAIT);
    expect(w.events).toContainEqual(
      'Normal HelmStillRunning: helm uninstall of release web has been running for 15s (timeout 1m); hooks or waits are holding a worker',
    );
    w.ends.uninstall?.();
    await deleting;
    expect(w.helm.callsOf('uninstall').map((p) => p.timeoutMs)).toEqual([60_000]);
    expect(w.writes.slice(-1)).toEqual(['Initialized:True:,Deployed:False:UninstallSuccessful']);
    expect(w.cr).toBeUndefined();
  });
});
