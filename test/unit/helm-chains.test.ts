// Pins the two helm middleware orders (src/helm/middleware.ts): the process-wide one (manager/process-helm.ts:
// release records outside the CLI's metrics) and the per-reconcile one (reconciler/release/reconcile-helm.ts: Secret
// values hidden outside the CR's timeout and slow-run notice), and that a reconcile's helm call reaches the real
// adapter with both the secrets and the timeout set, once the process-wide middlewares saw it.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { processHelm, processMiddlewares } from '../../src/manager/process-helm.js';
import { helmMetrics } from '../../src/observability/helm-metrics.js';
import { releaseOptions } from '../../src/reconciler/inputs/annotations.js';
import { reconcileHelm, reconcileMiddlewares } from '../../src/reconciler/release/reconcile-helm.js';
import type { StatusUpdater } from '../../src/reconciler/status/updater.js';
import { FakeClock } from '../fakes/clock.js';
import { FakeHelm } from '../fakes/helm.js';

const signal = new AbortController().signal;
const records = { observe: () => undefined };
const cr = { apiVersion: 'demo.example.com/v1', kind: 'Web', metadata: { name: 'web', namespace: 'apps' } };
const perReconcile = {
  run: {
    key: 'apps/web',
    namespace: 'apps',
    name: 'web',
    cr,
    annotations: { periodMs: 0, options: releaseOptions(undefined), paused: false },
    log: silentLogger,
    signal,
    updater: {} as StatusUpdater,
    now: () => 0,
    note: () => undefined,
  },
  timeoutMs: 120_000,
  clock: new FakeClock(),
};

describe('the helm middleware orders', () => {
  it('process-wide: the release-record observer, then the CLI middlewares (metrics), then the adapter', () => {
    const names = processMiddlewares({ records, middlewares: [helmMetrics(() => undefined)] }).map((m) => m.name);
    expect(names).toEqual(['release records', 'metrics']);
  });

  it('per reconcile: Secret values hidden, then the CR timeout and slow-run notice, then the process-wide client', () => {
    expect(reconcileMiddlewares({ ...perReconcile, secrets: ['pw'] }).map((m) => m.name)).toEqual([
      'secrets',
      'slow helm',
    ]);
  });

  it("hands the adapter a reconcile's call with the secrets and the CR timeout, after the metrics timed it", async () => {
    let received: { secrets?: readonly string[]; timeoutMs?: number } | undefined;
    const adapter = new FakeHelm().on('uninstall', (p) => {
      received = p;
    });
    const timed: string[] = [];
    const process = processHelm({
      helm: adapter,
      records,
      middlewares: [helmMetrics((action, result) => timed.push(`${action} ${result}`))],
    });
    const helm = reconcileHelm({ ...perReconcile, helm: process, secrets: ['pw'] });
    await helm.uninstall({ release: 'web', namespace: 'apps', signal });
    expect(received).toMatchObject({ secrets: ['pw'], timeoutMs: 120_000 });
    expect(timed).toEqual(['uninstall success']);
  });
});
