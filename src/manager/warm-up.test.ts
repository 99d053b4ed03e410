import { describe, expect, it } from 'vitest';
import { COMMON_RESOURCES, FakeKubeApi } from '../../test/fakes/kube-api.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import type { TemplateParams } from '../helm/types.js';
import type { ApiResource } from '../kube/types.js';
import { WARM_UP_CONNECTIONS, WARM_UP_RELEASE, warmUp } from './warm-up.js';

const VERSION = { major: '1', minor: '36', gitVersion: 'v1.36.3' };

const MANIFEST = `---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: warm-up-web
---
# Source: web/templates/service.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: warm-up-web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: warm-up-web-2
---
apiVersion: batch/v1
kind: Job
metadata:
  name: warm-up-web-pre-install
  annotations:
    helm.sh/hook: pre-install
---
apiVersion: example.com/v1
kind: NotServed
metadata:
  name: x
`;

const jobs: ApiResource = { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true };

/** A watcher that records what it was asked to start and waits `syncMs` for their first LIST. */
function watcherStub(syncMs = 0) {
  const ensured: string[] = [];
  let synced = false;
  return {
    ensured,
    synced: () => synced,
    ensure: (resources: readonly ApiResource[]) => void ensured.push(...resources.map((r) => r.kind)),
    waitForSync: async () => {
      await new Promise((resolve) => setTimeout(resolve, syncMs));
      synced = true;
    },
  };
}

describe('the warm-up before a controller’s workers start', () => {
  it('renders the chart against the cluster once and starts the informers of the kinds it renders before it is synced', async () => {
    const calls: TemplateParams[] = [];
    const watcher = watcherStub(20);
    const kube = new FakeKubeApi({ served: [...COMMON_RESOURCES, jobs], serverVersion: VERSION });
    let prepared = 0;
    const { logger, text } = recordingLogger();
    const source = warmUp({
      chart: '/charts/web',
      namespace: 'apps',
      postRenderArgs: ['--owner-name=warm-up'],
      render: async (p) => {
        calls.push(p);
        return MANIFEST;
      },
      kube,
      watcher,
      logger,
      prepare: async () => void prepared++,
    });
    const signal = new AbortController().signal;
    void source.start(signal);
    void source.start(signal); // one render, however often started
    expect(source.hasSynced()).toBe(false);
    await source.waitForSync(signal);

    expect(source.hasSynced()).toBe(true);
    expect(watcher.synced()).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      chart: '/charts/web',
      release: WARM_UP_RELEASE,
      namespace: 'apps',
      validate: true,
      postRenderArgs: ['--owner-name=warm-up'], // the post-renderer runs, as for an install
    });
    expect(watcher.ensured).toEqual(['Deployment', 'ConfigMap']); // once each; no hook, nor a kind not served
    expect(text()).toContain('Warmed up');
    // Two GET /version at once, after the informers synced: idle connections for the first reconcile's writes.
    expect(kube.calls.filter((c) => c.verb === 'serverVersion')).toHaveLength(WARM_UP_CONNECTIONS);
    expect(text()).toContain(`"connections":${WARM_UP_CONNECTIONS}`);
    expect(prepared).toBe(1); // the reconciles' shared inputs (the chart digest), once
  });

  it('renders from the folder the reconciles hand helm (a copy without dependencies helm does not load)', async () => {
    const calls: TemplateParams[] = [];
    const source = warmUp({
      chart: '/charts/web',
      chartPath: async () => '/stage/chart-1/web',
      namespace: 'apps',
      render: async (p) => {
        calls.push(p);
        return '';
      },
      kube: new FakeKubeApi({ serverVersion: VERSION }),
      logger: recordingLogger().logger,
    });
    const signal = new AbortController().signal;
    void source.start(signal);
    await source.waitForSync(signal);
    expect(calls.map((c) => c.chart)).toEqual(['/stage/chart-1/web']);
  });

  it('lets the workers start when the chart does not render with its defaults, and says why', async () => {
    const { logger, text } = recordingLogger();
    const kube = new FakeKubeApi({ serverVersion: VERSION });
    const source = warmUp({
      chart: '/charts/strict',
      namespace: 'default',
      render: async () => Promise.reject(new Error('execution error: a value is required')),
      kube,
      prepare: () => Promise.reject(new Error('no such chart file')), // the first reconcile's to meet
      logger,
    });
    const signal = new AbortController().signal;
    void source.start(signal);
    await source.waitForSync(signal);
    expect(source.hasSynced()).toBe(true);
    expect(text()).toMatch(/Warm-up skipped.*a value is required/);
    expect(kube.calls.filter((c) => c.verb === 'serverVersion')).toHaveLength(WARM_UP_CONNECTIONS); // still opened
  });

  it('lets the workers start at its bound when helm does not answer, and rejects only when the operator stops', async () => {
    const { logger } = recordingLogger();
    const source = warmUp({
      chart: '/charts/slow',
      namespace: 'default',
      render: (p) => new Promise((_, reject) => p.signal.addEventListener('abort', () => reject(p.signal.reason))),
      kube: new FakeKubeApi(),
      logger,
      boundMs: 50,
    });
    const stop = new AbortController();
    void source.start(stop.signal);
    const started = performance.now();
    await source.waitForSync(stop.signal);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(source.hasSynced()).toBe(true);

    const other = warmUp({
      ...{ chart: '/c', namespace: 'd', kube: new FakeKubeApi(), logger },
      render: () => new Promise(() => {}),
    });
    const stopped = new AbortController();
    void other.start(stopped.signal);
    const waiting = other.waitForSync(stopped.signal);
    stopped.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    stop.abort();
  });
});
