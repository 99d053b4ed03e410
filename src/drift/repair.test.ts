import { describe, expect, it } from 'vitest';
import { fakeKube } from '../../test/support/drift-cluster.js';
import { silentLogger } from '../core/logger.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { type DriftCorrection, DriftRepairer, describeCorrection } from './repair.js';
import { DRIFT_FIELD_MANAGER } from './writes.js';

const MANIFEST = `---
# Source: web/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: other
spec:
  replicas: 2
---
# Source: web/templates/clusterrole.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get]
`;

const NS = 'team';

/**
 * What the cluster holds for MANIFEST: the chart's fields plus what the server and others add; by default in sync,
 * `mode` and `replicas` drift the ConfigMap and the Deployment.
 */
function inSync({ mode = 'fast', replicas = 2 }: { mode?: string; replicas?: number } = {}): KubeObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: NS, resourceVersion: '1', labels: { added: 'by-someone' } },
      data: { mode, extra: 'kept' },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'other', resourceVersion: '2', generation: 4 },
      spec: { replicas, paused: false },
      status: { readyReplicas: 2 },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader', resourceVersion: '3' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
  ];
}

const signal = () => new AbortController().signal;

function withoutBookkeeping(c: DriftCorrection) {
  return { action: c.action, kind: c.kind, namespace: c.namespace, name: c.name };
}

describe('DriftRepairer.repair', () => {
  describe('when every object is in sync', () => {
    it('checks them all and patches nothing', async () => {
      const f = fakeKube(inSync());
      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);
      expect(result).toEqual({ checked: 3, corrected: [], failed: [], unconfirmed: [] });
      expect(f.patches).toEqual([]);
      expect(f.gets).toEqual(['configmaps/team/settings', 'deployments/other/web', 'clusterroles//reader']);
    });
  });

  describe('when an object was deleted', () => {
    it('recreates a namespaced object by a forced server-side apply in the release namespace', async () => {
      const f = fakeKube(inSync().filter((o) => o.kind !== 'ConfigMap'));
      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.corrected).toEqual([
        { action: 'created', apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'settings', paths: [] },
      ]);
      expect(f.patches).toHaveLength(1);
      const [call] = f.patches;
      expect(call?.type).toBe('apply');
      expect(call?.namespace).toBe(NS);
      expect(call?.name).toBe('settings');
      expect(call?.options).toMatchObject({ fieldManager: DRIFT_FIELD_MANAGER, force: true });
      expect(call?.body).toEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: NS },
        data: { mode: 'fast' },
      });
    });

    it('keeps the namespace the manifest names for a namespaced object', async () => {
      const f = fakeKube(inSync().filter((o) => o.kind !== 'Deployment'));
      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);
      expect(result.corrected.map(withoutBookkeeping)).toEqual([
        { action: 'created', kind: 'Deployment', namespace: 'other', name: 'web' },
      ]);
      expect(f.patches[0]?.namespace).toBe('other');
      expect(f.patches[0]?.body.metadata).toEqual({ name: 'web', namespace: 'other' });
    });

    it('recreates a cluster-scoped object without any namespace', async () => {
      const f = fakeKube(inSync().filter((o) => o.kind !== 'ClusterRole'));
      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.corrected.map(withoutBookkeeping)).toEqual([
        { action: 'created', kind: 'ClusterRole', namespace: '', name: 'reader' },
      ]);
      const [call] = f.patches;
      expect(call?.namespace).toBe('');
      expect(call?.type).toBe('apply');
      expect(call?.body.metadata).toEqual({ name: 'reader' });
    });
  });

  describe('when a field drifted', () => {
    it('puts the chart fields back and reports the drifted paths', async () => {
      const f = fakeKube(inSync({ mode: 'slow', replicas: 7 }));

      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.checked).toBe(3);
      expect(result.failed).toEqual([]);
      expect(result.corrected).toEqual([
        {
          action: 'patched',
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: NS,
          name: 'settings',
          paths: ['data.mode'],
        },
        {
          action: 'patched',
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'other',
          name: 'web',
          paths: ['spec.replicas'],
        },
      ]);
      expect(f.patches.map((p) => [p.name, p.type, p.options.fieldManager, p.options.force])).toEqual([
        ['settings', 'apply', DRIFT_FIELD_MANAGER, true],
        ['web', 'apply', DRIFT_FIELD_MANAGER, true],
      ]);
      // The apply body is the chart's object, not the live one: fields others added are left alone.
      expect(f.patches[0]?.body.data).toEqual({ mode: 'fast' });
    });
  });

  describe('when a cache answers', () => {
    it('uses the cached object and makes no GET when the cache shows it in sync', async () => {
      const live = inSync();
      const f = fakeKube(live);
      const cached = (res: ApiResource, namespace: string, name: string) =>
        live.find((o) => o.kind === res.kind && (o.metadata.namespace ?? '') === namespace && o.metadata.name === name);

      const result = await new DriftRepairer({ kube: f.kube, cached }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.corrected).toEqual([]);
      expect(f.gets).toEqual([]);
      expect(f.patches).toEqual([]);
    });

    it('confirms a drift the cache shows with a GET, and patches nothing when the server is in sync', async () => {
      const f = fakeKube(inSync());
      const stale = inSync({ mode: 'slow' });
      const cached = (res: ApiResource, _namespace: string, name: string) =>
        stale.find((o) => o.kind === res.kind && o.metadata.name === name);

      const result = await new DriftRepairer({ kube: f.kube, cached }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.corrected).toEqual([]);
      expect(f.patches).toEqual([]);
      expect(f.gets).toEqual(['configmaps/team/settings']);
    });

    it('confirms an absence the cache shows with a GET before recreating', async () => {
      const f = fakeKube(inSync());
      const cached = (res: ApiResource) => (res.kind === 'ConfigMap' ? null : undefined);

      const result = await new DriftRepairer({ kube: f.kube, cached }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.corrected).toEqual([]);
      expect(f.patches).toEqual([]);
      expect(f.gets).toContain('configmaps/team/settings');
    });

    it('repairs when the confirming GET agrees with the cache', async () => {
      const live = inSync({ mode: 'slow' });
      const f = fakeKube(live);
      const cached = (res: ApiResource, _namespace: string, name: string) =>
        live.find((o) => o.kind === res.kind && o.metadata.name === name);

      const result = await new DriftRepairer({ kube: f.kube, cached }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.corrected.map(withoutBookkeeping)).toEqual([
        { action: 'patched', kind: 'ConfigMap', namespace: NS, name: 'settings' },
      ]);
      expect(f.gets).toEqual(['configmaps/team/settings']);
    });
  });

  describe('when an object is being deleted', () => {
    it('leaves it alone even though it drifted', async () => {
      const live = inSync();
      live[0] = {
        ...live[0],
        metadata: { ...live[0]?.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' },
        data: { mode: 'slow' },
      } as KubeObject;
      const f = fakeKube(live);

      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result).toEqual({ checked: 3, corrected: [], failed: [], unconfirmed: [] });
      expect(f.patches).toEqual([]);
    });
  });

  describe('when a patch fails', () => {
    it('reports the failure and goes on with the next object', async () => {
      const f = fakeKube([], { settings: new Error('admission webhook denied the request') });

      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.failed).toEqual([
        { kind: 'ConfigMap', namespace: NS, name: 'settings', message: 'admission webhook denied the request' },
      ]);
      expect(result.corrected.map((c) => c.name)).toEqual(['web', 'reader']);
      expect(f.patches.map((p) => p.name)).toEqual(['settings', 'web', 'reader']);
    });

    it('skips, without a failure, an object the API server refuses because its namespace is being deleted', async () => {
      const terminating = new Error(
        'configmaps "settings" is forbidden: unable to create new content in namespace team because it is being terminated',
      );
      const f = fakeKube([], { settings: terminating });

      const result = await new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, signal(), silentLogger);

      expect(result.failed).toEqual([]);
      expect(result.corrected.map((c) => c.name)).toEqual(['web', 'reader']);
    });

    it('reports a kind that discovery does not know as a failure, without stopping', async () => {
      const manifest = `${MANIFEST}---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n`;
      const f = fakeKube(inSync());

      const result = await new DriftRepairer({ kube: f.kube }).repair(manifest, NS, signal(), silentLogger);

      expect(result.checked).toBe(4);
      expect(result.failed).toHaveLength(1);
      expect(result.failed[0]).toMatchObject({ kind: 'Widget', name: 'w' });
      expect(result.failed[0]?.message).toContain('404');
      expect(f.patches).toEqual([]);
    });
  });

  describe('when the signal is aborted', () => {
    it('rejects instead of reporting failures', async () => {
      const f = fakeKube([]);
      const repair = new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, AbortSignal.abort(), silentLogger);
      await expect(repair).rejects.toThrow();
      expect(f.patches).toEqual([]);
    });

    it('stops at the object where it was aborted', async () => {
      const controller = new AbortController();
      const f = fakeKube([]);
      f.kube.on('after', { verb: 'patch' }, () => {
        controller.abort(new Error('stopping'));
        throw new Error('connection reset');
      });

      await expect(
        new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, controller.signal, silentLogger),
      ).rejects.toThrow('connection reset');
      expect(f.patches.map((p) => p.name)).toEqual(['settings']);
    });
  });

  describe('when the manifest holds YAML 1.1 scalars', () => {
    it('reads them as Helm does: 0644 reaches the apply body as the number 420', async () => {
      const manifest = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      volumes:
        - name: config
          configMap:
            name: settings
            defaultMode: 0644
`;
      const f = fakeKube([]);
      const result = await new DriftRepairer({ kube: f.kube }).repair(manifest, NS, signal(), silentLogger);

      expect(result.corrected.map(withoutBookkeeping)).toEqual([
        { action: 'created', kind: 'Deployment', namespace: NS, name: 'web' },
      ]);
      const spec = f.patches[0]?.body.spec as {
        template: { spec: { volumes: { configMap: { defaultMode: unknown } }[] } };
      };
      expect(spec.template.spec.volumes[0]?.configMap.defaultMode).toBe(420);
    });
  });
});

describe('DriftRepairer.objectsOf', () => {
  const upgraded = MANIFEST.replace('replicas: 2', 'replicas: 3');

  it("parses a manifest once, and keeps nothing of a CR's superseded manifest or of a forgotten CR", () => {
    const r = new DriftRepairer({ kube: fakeKube([]).kube });
    const first = r.objectsOf(MANIFEST, 'team/web');
    expect(r.objectsOf(MANIFEST, 'team/web')).toBe(first);
    const second = r.objectsOf(upgraded, 'team/web');
    expect(second).not.toBe(first);
    expect(r.objectsOf(upgraded)).toBe(second);
    // The superseded manifest was dropped: asking for it again parses it again.
    expect(r.objectsOf(MANIFEST)).not.toBe(first);
    r.forget('team/web');
    expect(r.objectsOf(upgraded)).not.toBe(second);
  });
});

describe('describeCorrection', () => {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'settings' } as const;

  it('says a deleted object was recreated, naming it', () => {
    expect(describeCorrection({ ...base, action: 'created', paths: [] })).toBe(
      'Recreated ConfigMap team/settings, which had been deleted',
    );
  });

  it('lists the reverted paths of a patched object', () => {
    expect(describeCorrection({ ...base, action: 'patched', paths: ['data.mode', 'data.level'] })).toBe(
      "Reverted ConfigMap team/settings to the chart's data.mode, data.level",
    );
  });

  it('speaks of the fields when no path is known', () => {
    expect(describeCorrection({ ...base, action: 'patched', paths: [] })).toBe(
      "Reverted ConfigMap team/settings to the chart's fields",
    );
  });

  it('names a cluster-scoped object without a namespace', () => {
    expect(
      describeCorrection({ ...base, kind: 'ClusterRole', namespace: '', name: 'reader', action: 'created', paths: [] }),
    ).toBe('Recreated ClusterRole reader, which had been deleted');
  });
});
