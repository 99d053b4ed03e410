// A chart folder removed under the running operator: the next reconcile makes the CR Irreconcilable with a message
// and a ReconcileError event naming the folder (replacing an older failure), runs no helm and retries after the
// release backoff (CHART_UNREADABLE); with the folder back, the CR is Deployed again.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helmCommandError, helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, NGINX_CHART, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { RetryLaterError } from '../core/errors.js';
import { HelmReconciler } from './reconciler.js';
import type { HelmAppStatus } from './types.js';

describe('HelmReconciler when the chart folder goes away', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('says so in the condition and an event naming the folder, replacing the older error; recovers', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chart-gone-'));
    dirs.push(root);
    const chart = join(root, 'nginx');
    cpSync(NGINX_CHART, chart, { recursive: true });
    const store = new CrStore(nginxCr({ replicaCount: 1 }));
    const { helm, history } = helmWithHistory();
    const events: string[] = [];
    const reconciler = new HelmReconciler(
      reconcilerOptions({
        watch: { chart },
        crs: store.access,
        releases: { history: async () => history.list() },
        helm,
        events: { event: (_cr, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
      }),
    );
    const signal = new AbortController().signal;
    const reconcile = () => reconciler.reconcile('apps/web', signal).catch((err: unknown) => err);
    const status = () => store.live().status as HelmAppStatus;
    const respec = (replicaCount: number) => {
      const cr = store.live();
      const generation = (cr.metadata.generation ?? 1) + 1;
      store.cr = { ...cr, metadata: { ...cr.metadata, generation }, spec: { replicaCount } };
    };

    await reconcile();
    respec(2);
    helm.failNext('upgrade', helmCommandError('upgrade', 'Error: UPGRADE FAILED: an older, unrelated error'));
    await reconcile();
    expect(status().conditions.find((c) => c.type === 'ReleaseFailed')?.reason).toBe('UpgradeError');

    rmSync(chart, { recursive: true });
    respec(3);
    const calls = helm.calls.length;
    const err = await reconcile();
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err).toMatchObject({ code: 'CHART_UNREADABLE', retryAfterMs: 10_000 });
    expect(helm.calls.length).toBe(calls);
    const irreconcilable = status().conditions.find((c) => c.type === 'Irreconcilable');
    expect(irreconcilable?.message).toBe(
      `chart ${chart} cannot be read: it does not exist; restore it, or point this kind's chart in watches.yaml at a ` +
        'chart folder and restart the operator (nothing was installed or changed; retrying)',
    );
    expect(status().conditions.find((c) => c.type === 'ReleaseFailed')).toBeUndefined();
    expect(status().state).toBe('Irreconcilable');
    expect(events.at(-1)).toBe(`Warning ReconcileError: ${irreconcilable?.message}`);

    cpSync(NGINX_CHART, chart, { recursive: true });
    await reconcile();
    expect(status().conditions.find((c) => c.type === 'Irreconcilable')).toBeUndefined();
    expect(status().state).toBe('Deployed');
    expect(status().deployedRelease?.revision).toBe(history.list().length);
  });
});
