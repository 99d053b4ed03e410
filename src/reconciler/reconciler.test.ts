import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import type { Watch } from '../config/watches.js';
import { silentLogger } from '../core/logger.js';
import { FINALIZER } from '../finalizers/finalizers.js';
import type { HelmClient, HelmReleaseResult, InstallParams, UpgradeParams } from '../helm/cli.js';
import type { HelmRelease } from '../helm/release.js';
import { FINGERPRINT_LABEL, HelmReconciler } from './reconciler.js';
import type { CrAccess, CustomResource, HelmAppStatus, StoredRelease } from './types.js';

const chart = fileURLToPath(new URL('../../charts/nginx', import.meta.url));

/** An in-memory cluster: one CR, Helm's release history, and a log of every write in order. */
function world(spec: unknown = { replicaCount: 2 }) {
  const events: string[] = [];
  let cr: CustomResource | undefined = {
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Nginx',
    metadata: { name: 'web', namespace: 'apps', resourceVersion: '1', generation: 1 },
    spec,
  };
  const history: StoredRelease[] = [];
  const bump = (o: CustomResource, patch: Partial<CustomResource>): CustomResource => ({
    ...o,
    ...patch,
    metadata: {
      ...o.metadata,
      ...(patch.metadata ?? {}),
      resourceVersion: String(Number(o.metadata.resourceVersion) + 1),
    },
  });
  const crs: CrAccess = {
    async get() {
      return cr;
    },
    async setFinalizers(o, finalizers) {
      events.push(`finalizers=${finalizers.join(',')}`);
      cr = bump(o, { metadata: { ...o.metadata, finalizers } });
      if (cr.metadata.deletionTimestamp && finalizers.length === 0) cr = undefined;
      return cr ?? o;
    },
    async writeStatus(o, status: HelmAppStatus) {
      events.push(`status=${status.conditions.map((c) => `${c.type}:${c.status}:${c.reason ?? ''}`).join(',')}`);
      cr = bump(o, { status });
      return cr;
    },
  };
  const record = (version: number, p: InstallParams | UpgradeParams): HelmReleaseResult => {
    for (const h of history)
      if (h.release.info.status === 'deployed') Object.assign(h.release.info, { status: 'superseded' });
    const release: HelmRelease = {
      name: p.release,
      namespace: p.namespace,
      version,
      info: { status: 'deployed', notes: 'NOTES for web' },
      chart: { name: 'nginx', version: '0.1.0' },
      config: {},
      manifest: `manifest v${version}`,
    };
    history.push({ release, labels: { ...(p.labels ?? {}) } });
    return {
      name: p.release,
      namespace: p.namespace,
      version,
      info: release.info,
      manifest: release.manifest,
      chart: { metadata: release.chart },
    };
  };
  const helmCalls: string[] = [];
  const helm: HelmClient = {
    version: async () => ({ version: 'v3.22.0', major: 3, minor: 22 }),
    async install(p) {
      helmCalls.push(`install ${JSON.stringify(p.values)}`);
      events.push('helm install');
      return record(1, p);
    },
    async upgrade(p) {
      helmCalls.push(`upgrade ${JSON.stringify(p.values)}`);
      events.push('helm upgrade');
      return record(history.length + 1, p);
    },
    async uninstall() {
      helmCalls.push('uninstall');
      events.push('helm uninstall');
      history.length = 0;
    },
    async rollback() {
      helmCalls.push('rollback');
    },
  };
  const watch: Watch = {
    group: 'demo.example.com',
    version: 'v1alpha1',
    kind: 'Nginx',
    chart,
    watchDependentResources: true,
    overrideValues: { 'image.tag': '1.27' },
  };
  const reconciler = new HelmReconciler({
    watch,
    defaultReconcilePeriodMs: 60_000,
    crs,
    releases: { history: async () => history },
    helm,
    clock: new FakeClock({ nowMs: Date.parse('2026-01-01T00:00:00Z') }),
    logger: silentLogger,
  });
  const signal = new AbortController().signal;
  return {
    events,
    helmCalls,
    history,
    get cr() {
      return cr;
    },
    set cr(v) {
      cr = v;
    },
    reconcile: () => reconciler.reconcile('apps/web', signal),
  };
}

describe('HelmReconciler', () => {
  describe('when the CR has no release yet', () => {
    it('adds the finalizer before installing, then writes Deployed with the notes and deployedRelease', async () => {
      const w = world();
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(w.events).toEqual([
        `finalizers=${FINALIZER}`,
        'helm install',
        'status=Initialized:True:,Deployed:True:InstallSuccessful',
      ]);
      const status = w.cr?.status as HelmAppStatus | undefined;
      expect(status?.deployedRelease).toEqual({ name: 'web', manifest: 'manifest v1', revision: 1 });
      expect(status?.conditions.find((c) => c.type === 'Deployed')?.message).toBe('NOTES for web');
    });

    it("installs with the spec deep-merged with the watch's overrideValues, and labels the release with the fingerprint", async () => {
      const w = world({ replicaCount: 2, image: { repository: 'nginx' } });
      await w.reconcile();
      expect(w.helmCalls).toEqual(['install {"replicaCount":2,"image":{"repository":"nginx","tag":"1.27"}}']);
      expect(w.history[0]?.labels[FINGERPRINT_LABEL]).toMatch(/^[0-9a-f]{63}$/);
    });
  });

  describe('when nothing changed since the last release', () => {
    it('spawns no helm process and writes nothing', async () => {
      const w = world();
      await w.reconcile();
      const before = w.events.length;
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(w.helmCalls).toHaveLength(1);
      expect(w.events.slice(before)).toEqual([]);
    });
  });

  describe('when the spec changes', () => {
    it('upgrades exactly once and reports UpgradeSuccessful', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, spec: { replicaCount: 3 } };
      await w.reconcile();
      await w.reconcile();
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install', 'upgrade']);
      expect((w.cr?.status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === 'Deployed')?.reason).toBe(
        'UpgradeSuccessful',
      );
      expect(w.history.map((h) => h.release.version)).toEqual([1, 2]);
    });
  });

  describe('when the CR is being deleted', () => {
    it('uninstalls, writes Deployed=False/UninstallSuccessful, then removes the finalizer', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } };
      w.events.length = 0;
      expect(await w.reconcile()).toEqual({});
      expect(w.events).toEqual([
        'helm uninstall',
        'status=Initialized:True:,Deployed:False:UninstallSuccessful',
        'finalizers=',
      ]);
      expect(w.cr).toBeUndefined();
    });
  });

  describe('when the spec is not an object', () => {
    it('sets Irreconcilable and does not retry', async () => {
      const w = world(['not', 'a', 'map']);
      await expect(w.reconcile()).rejects.toMatchObject({ code: 'TERMINAL' });
      expect(w.helmCalls).toEqual([]);
      expect(w.events.at(-1)).toBe('status=Initialized:True:,Irreconcilable:True:ReconcileError');
    });
  });
});
