import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { DriftCorrection, DriftRepairer, DriftResult } from '../drift/repair.js';
import { manifestObjects } from '../helm/manifest.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import type { CustomResource } from '../reconciler/types.js';
import { PodCauses } from './pod-causes.js';
import { dependentsPort } from './port.js';
import type { DependentWatcher } from './watcher.js';

const CONFIG_MAPS: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const DEPLOYMENTS: ApiResource = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
};
const CLUSTER_ROLES: ApiResource = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
};
const KNOWN = [CONFIG_MAPS, DEPLOYMENTS, CLUSTER_ROLES];

const MANIFEST = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: more
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
`;

const CR: CustomResource = {
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team', uid: 'uid-1' },
};

const NOTHING: DriftResult = { checked: 4, corrected: [], failed: [], unconfirmed: [] };

/** The port with recording fakes; `unknownKinds` fail discovery with a NotFoundError. */
function setup(
  result: DriftResult = NOTHING,
  opts: { unknownKinds?: string[]; watcher?: boolean; unsynced?: string[]; syncOnWait?: boolean } = {},
) {
  const discovered: string[] = [];
  const ensured: ApiResource[][] = [];
  const repairs: { manifest: string; namespace: string; signal: AbortSignal; log: Logger }[] = [];
  const events: { cr: CustomResource; type: string; reason: string; message: string }[] = [];
  const counted: DriftCorrection[] = [];
  const kube = new FakeKubeApi({ served: KNOWN.filter((r) => !opts.unknownKinds?.includes(r.kind)) });
  kube.on('before', { verb: 'discover' }, ({ gvk, options }) => {
    (options as { signal: AbortSignal }).signal.throwIfAborted();
    discovered.push(`${gvk?.group}/${gvk?.version}/${gvk?.kind}`);
  });
  /** The watcher's cache: "kind/namespace/name" → object; kinds in `unsynced` answer undefined. */
  const live = new Map<string, KubeObject>();
  const lookups: string[] = [];
  const unsynced = new Set(opts.unsynced ?? []);
  const waited: { kinds: string[]; timeoutMs: number }[] = [];
  const watcher = {
    ensure(resources: readonly ApiResource[]) {
      ensured.push([...resources]);
    },
    async waitForSync(resources: readonly ApiResource[], timeoutMs: number) {
      waited.push({ kinds: resources.map((r) => r.kind), timeoutMs });
      if (opts.syncOnWait) for (const r of resources) unsynced.delete(r.kind);
    },
    get(res: ApiResource, namespace: string, name: string) {
      lookups.push(`${res.kind}/${namespace}/${name}`);
      if (unsynced.has(res.kind)) return undefined;
      return live.get(`${res.kind}/${namespace}/${name}`) ?? null;
    },
  } as unknown as DependentWatcher;
  const repairer = {
    objectsOf: (manifest: string) => manifestObjects(manifest),
    async repair(manifest: string, namespace: string, signal: AbortSignal, log: Logger) {
      repairs.push({ manifest, namespace, signal, log });
      return result;
    },
  } as unknown as DriftRepairer;
  const port = dependentsPort({
    kube,
    ...(opts.watcher === false ? {} : { watcher }),
    repairer,
    events: { event: (cr, type, reason, message) => events.push({ cr, type, reason, message }) },
    onCorrected: (c) => counted.push(c),
  });
  const put = (obj: KubeObject) =>
    live.set(`${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`, obj);
  return { port, discovered, ensured, repairs, events, counted, put, lookups, waited };
}

const call = (log: Logger = silentLogger, signal = new AbortController().signal) => ({ signal, log });

describe('dependentsPort.afterDeploy', () => {
  describe('when a helm action changed the release', () => {
    it("hands the manifest's kinds to the watcher, each discovered once, and does not repair", async () => {
      const t = setup();
      await t.port.afterDeploy(CR, MANIFEST, true, call());

      expect(t.discovered).toEqual(['/v1/ConfigMap', 'apps/v1/Deployment', 'rbac.authorization.k8s.io/v1/ClusterRole']);
      expect(t.ensured).toEqual([[CONFIG_MAPS, DEPLOYMENTS, CLUSTER_ROLES]]);
      expect(t.repairs).toEqual([]);
      expect(t.events).toEqual([]);
    });
  });

  describe('when no helm action ran', () => {
    it('repairs drift in the CR namespace with the call signal and logger', async () => {
      const t = setup();
      const { logger } = recordingLogger();
      const signal = new AbortController().signal;
      await t.port.afterDeploy(CR, MANIFEST, false, call(logger, signal));

      expect(t.repairs).toHaveLength(1);
      expect(t.repairs[0]).toMatchObject({ manifest: MANIFEST, namespace: 'team' });
      expect(t.repairs[0]?.signal).toBe(signal);
      expect(t.repairs[0]?.log).toBe(logger);
      expect(t.ensured).toHaveLength(1);
      expect(t.events).toEqual([]);
    });

    it('emits one DriftCorrected event per correction naming the object, and counts each', async () => {
      const corrected: DriftCorrection[] = [
        { action: 'created', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'settings', paths: [] },
        {
          action: 'patched',
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'team',
          name: 'web',
          paths: ['spec.replicas'],
        },
      ];
      const t = setup({ ...NOTHING, corrected });
      const { logger, lines } = recordingLogger();

      await t.port.afterDeploy(CR, MANIFEST, false, call(logger));

      expect(t.events).toEqual([
        {
          cr: CR,
          type: 'Normal',
          reason: 'DriftCorrected',
          message: 'Recreated ConfigMap team/settings, which had been deleted',
        },
        {
          cr: CR,
          type: 'Normal',
          reason: 'DriftCorrected',
          message: "Reverted Deployment team/web to the chart's spec.replicas",
        },
      ]);
      expect(t.counted).toEqual(corrected);
      expect(lines.filter((l) => l.msg === 'Drift corrected')).toHaveLength(2);
    });

    it('emits one DriftRepairFailed warning per failure, naming the object and the reason', async () => {
      const t = setup({
        ...NOTHING,
        failed: [
          { kind: 'ConfigMap', namespace: 'team', name: 'settings', message: 'forbidden' },
          { kind: 'ClusterRole', namespace: '', name: 'reader', message: 'webhook denied' },
        ],
      });

      await t.port.afterDeploy(CR, MANIFEST, false, call());

      expect(t.events.map((e) => [e.type, e.reason, e.message])).toEqual([
        ['Warning', 'DriftRepairFailed', 'Cannot put back ConfigMap team/settings: forbidden'],
        ['Warning', 'DriftRepairFailed', 'Cannot put back ClusterRole reader: webhook denied'],
      ]);
      expect(t.counted).toEqual([]);
    });

    it('emits one DriftUnconfirmed warning per drift that no dry run could confirm, saying it was left alone', async () => {
      const why =
        '400 BadRequest: admission webhook "w" does not support dry run; left as it is until it or its chart changes';
      const t = setup({
        ...NOTHING,
        unconfirmed: [{ kind: 'Deployment', namespace: 'team', name: 'web', message: why }],
      });

      await t.port.afterDeploy(CR, MANIFEST, false, call());

      expect(t.events.map((e) => [e.type, e.reason, e.message])).toEqual([
        ['Warning', 'DriftUnconfirmed', `Cannot tell whether Deployment team/web drifted: ${why}`],
      ]);
      expect(t.counted).toEqual([]);
    });

    it('repairs without watching when there is no watcher', async () => {
      const t = setup(NOTHING, { watcher: false });
      await t.port.afterDeploy(CR, MANIFEST, false, call());
      expect(t.discovered).toEqual([]);
      expect(t.repairs).toHaveLength(1);
    });
  });

  describe('when discovery fails for a kind', () => {
    it('skips that kind with a warning, watches the others and does not throw', async () => {
      const t = setup(NOTHING, { unknownKinds: ['Deployment'] });
      t.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'team' } });
      t.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'more', namespace: 'team' } });
      t.put({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } });
      const { logger, lines } = recordingLogger();

      const ready = await t.port.afterDeploy(CR, MANIFEST, true, call(logger));
      expect(ready).toMatchObject({ status: 'Unknown', message: expect.stringContaining('Deployment team/web') });

      expect(t.ensured).toEqual([[CONFIG_MAPS, CLUSTER_ROLES]]);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'Cannot watch dependent kind',
          obj: expect.objectContaining({ kind: 'Deployment' }),
        }),
      );
    });

    it('tries that kind again on the next call', async () => {
      const t = setup(NOTHING, { unknownKinds: ['Deployment'] });
      await t.port.afterDeploy(CR, MANIFEST, true, call());
      await t.port.afterDeploy(CR, MANIFEST, true, call());
      expect(t.discovered.filter((d) => d.endsWith('/Deployment'))).toHaveLength(2);
    });
  });

  describe('when the same kinds come again', () => {
    it('discovers each kind only once across calls and CRs', async () => {
      const t = setup();
      const other: CustomResource = { ...CR, metadata: { ...CR.metadata, name: 'db', namespace: 'other' } };

      await t.port.afterDeploy(CR, MANIFEST, true, call());
      await t.port.afterDeploy(other, MANIFEST, false, call());
      await t.port.afterDeploy(CR, MANIFEST, true, call());

      expect(t.discovered).toHaveLength(3);
      expect(t.ensured).toEqual([[CONFIG_MAPS, DEPLOYMENTS, CLUSTER_ROLES], [], []]);
      expect(t.repairs.map((r) => r.namespace)).toEqual(['other']);
    });
  });

  describe('readiness', () => {
    const cm = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'team' },
    });
    const deployment = (available: number): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'team', generation: 1 },
      spec: { replicas: 1 },
      status: {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: available,
        availableReplicas: available,
        conditions: [{ type: 'Available', status: available ? 'True' : 'False' }],
      },
    });
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
    };

    it('reads each manifest object from the cache, namespaced ones in the CR namespace, cluster-scoped ones without', async () => {
      const t = setup();
      for (const o of [cm('settings'), cm('more'), deployment(1), role]) t.put(o);

      const ready = await t.port.afterDeploy(CR, MANIFEST, true, call());

      expect(ready).toEqual({ status: 'True', reason: 'AllObjectsReady', message: '4 objects ready' });
      expect(t.lookups).toEqual([
        'ConfigMap/team/settings',
        'ConfigMap/team/more',
        'Deployment/team/web',
        'ClusterRole//reader',
      ]);
    });

    it('names the first object that is not ready', async () => {
      const t = setup();
      for (const o of [cm('settings'), cm('more'), deployment(0), role]) t.put(o);

      const ready = await t.port.afterDeploy(CR, MANIFEST, false, call());

      expect(ready?.status).toBe('False');
      expect(ready?.reason).toBe('DeploymentNotReady');
      expect(ready?.message).toMatch(/^Deployment team\/web: /);
    });

    it('says a deleted object is not found', async () => {
      const t = setup();
      for (const o of [cm('settings'), deployment(1), role]) t.put(o);
      const ready = await t.port.afterDeploy(CR, MANIFEST, false, call());
      expect(ready).toMatchObject({
        status: 'False',
        reason: 'ConfigMapNotReady',
        message: 'ConfigMap team/more: not found',
      });
    });

    it('is Unknown while a kind cache has not synced', async () => {
      const t = setup(NOTHING, { unsynced: ['Deployment'] });
      for (const o of [cm('settings'), cm('more'), role]) t.put(o);
      const ready = await t.port.afterDeploy(CR, MANIFEST, true, call());
      expect(ready).toMatchObject({ status: 'Unknown', message: expect.stringContaining('Deployment team/web') });
    });

    it("waits up to 10 s for the first LIST of the manifest's kinds before judging, instead of reporting Unknown", async () => {
      const t = setup(NOTHING, { unsynced: ['Deployment'], syncOnWait: true });
      for (const o of [cm('settings'), cm('more'), deployment(1), role]) t.put(o);
      const ready = await t.port.afterDeploy(CR, MANIFEST, true, call());
      expect(t.waited).toEqual([{ kinds: ['ConfigMap', 'Deployment', 'ClusterRole'], timeoutMs: 10_000 }]);
      expect(ready).toMatchObject({ status: 'True' });
    });

    it('is not reported without a watcher, since nothing would keep it current', async () => {
      const t = setup(NOTHING, { watcher: false });
      await expect(t.port.afterDeploy(CR, MANIFEST, false, call())).resolves.toBeUndefined();
    });
  });

  describe('when the call is aborted', () => {
    it('rejects instead of skipping kinds, and does not repair', async () => {
      const t = setup();
      await expect(t.port.afterDeploy(CR, MANIFEST, false, call(silentLogger, AbortSignal.abort()))).rejects.toThrow();
      expect(t.repairs).toEqual([]);
      expect(t.ensured).toEqual([]);
    });
  });
});

describe('dependentsPort: why a workload is not ready, from its pods', () => {
  const DEPLOYMENT_ONLY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
`;
  const deployment = (ready: boolean): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'team', uid: 'd1', generation: 1 },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      ...(ready ? { readyReplicas: 1, availableReplicas: 1 } : {}),
      conditions: [{ type: 'Available', status: ready ? 'True' : 'False' }],
    },
  });
  const pulling: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-7d9c-x', namespace: 'team', labels: { app: 'web' } },
    status: { containerStatuses: [{ name: 'nginx', state: { waiting: { reason: 'ImagePullBackOff' } } }] },
  };

  function withPods(live: KubeObject, pods: KubeObject[]) {
    const kube = new FakeKubeApi({ served: KNOWN, objects: pods });
    const watcher = {
      ensure() {},
      async waitForSync() {},
      get: (res: ApiResource, namespace: string, name: string) =>
        res.kind === 'Deployment' && namespace === 'team' && name === 'web' ? live : null,
    } as unknown as DependentWatcher;
    const repairer = {
      objectsOf: (m: string) => manifestObjects(m),
      repair: async () => NOTHING,
    } as unknown as DriftRepairer;
    const pods_ = new PodCauses({ kube, clock: new FakeClock(), logger: silentLogger });
    const port = dependentsPort({ kube, watcher, repairer, events: { event() {} }, pods: pods_ });
    return { kube, port };
  }

  it('sends no request at all for a ready release (the hot path): discovery once, then nothing', async () => {
    const t = withPods(deployment(true), [pulling]);
    await t.port.afterDeploy(CR, DEPLOYMENT_ONLY, false, call());
    const first = t.kube.calls.length;
    const ready = await t.port.afterDeploy(CR, DEPLOYMENT_ONLY, false, call());
    expect(ready).toEqual({ status: 'True', reason: 'AllObjectsReady', message: '1 object ready' });
    expect(t.kube.calls.length - first).toBe(0);
    expect(t.kube.listCalls).toEqual([]);
  });

  it('names the pod, its container and ImagePullBackOff, and asks for a recheck', async () => {
    const t = withPods(deployment(false), [pulling]);
    expect(await t.port.afterDeploy(CR, DEPLOYMENT_ONLY, false, call())).toEqual({
      status: 'False',
      reason: 'ImagePullBackOff',
      message: 'Deployment team/web: pod web-7d9c-x: container nginx: ImagePullBackOff',
      recheck: true,
    });
    expect(t.kube.listCalls).toEqual([expect.objectContaining({ namespace: 'team', labelSelector: 'app=web' })]);
  });

  it('keeps the workload’s own message while no pod waits with a cause, and still asks for a recheck', async () => {
    const t = withPods(deployment(false), []);
    expect(await t.port.afterDeploy(CR, DEPLOYMENT_ONLY, false, call())).toEqual({
      status: 'False',
      reason: 'DeploymentNotReady',
      message: 'Deployment team/web: Available: 0/1',
      recheck: true,
    });
  });
});
