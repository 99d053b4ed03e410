import { describe, expect, it } from 'vitest';
import { clusterRoles, configMaps, FakeKubeApi, roles, serviceAccounts } from '../../test/fakes/kube-api.js';
import { silentLogger } from '../core/logger.js';
import { ManifestParseError } from '../helm/errors.js';
import { ForbiddenError, KubeApiError } from '../kube/errors.js';
import type { DeleteOptions } from '../kube/types.js';
import { cleanupRelease } from './uninstall-wait.js';

/** A server for the kinds the old object-server fake served. */
const server = () => new FakeKubeApi({ served: [configMaps, serviceAccounts, clusterRoles, roles] });
const deletes = (kube: FakeKubeApi) =>
  kube
    .callsOf('delete')
    .map((c) => ({ key: c.key, propagationPolicy: (c.options as DeleteOptions).propagationPolicy }));

function doc(source: string, apiVersion: string, kind: string, metadata: string): string {
  return `---\n# Source: demo/templates/${source}\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n${metadata}\n`;
}

const MANIFEST = [
  doc('blocked.yaml', 'v1', 'ConfigMap', '  name: blocked'),
  doc('free.yaml', 'v1', 'ConfigMap', '  name: free\ndata:\n  password: hunter2'),
  doc('sa.yaml', 'v1', 'ServiceAccount', '  name: demo\n  namespace: other'),
  doc('role.yaml', 'rbac.authorization.k8s.io/v1', 'ClusterRole', '  name: demo-reader'),
].join('');

function run(kube: FakeKubeApi, manifest = MANIFEST, signal = new AbortController().signal) {
  return cleanupRelease({ kube, manifest, namespace: 'rel', signal, logger: silentLogger });
}

describe('cleanupRelease', () => {
  it('reports nothing remaining and deletes nothing when every object is gone', async () => {
    const kube = server();
    await expect(run(kube)).resolves.toEqual({ remaining: [] });
    expect(kube.keysOf('get')).toEqual([
      'configmaps/rel/blocked',
      'configmaps/rel/free',
      'serviceaccounts/other/demo',
      'clusterroles/demo-reader',
    ]);
    expect(deletes(kube)).toEqual([]);
  });

  it('re-deletes every object that still exists and reports the ones a finalizer holds back', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'blocked', { finalizers: ['example.com/hold'] });
    kube.add(configMaps, 'rel', 'free');
    kube.add(clusterRoles, '', 'demo-reader');

    const { remaining } = await run(kube);

    expect(deletes(kube)).toEqual([
      { key: 'configmaps/rel/blocked', propagationPolicy: 'Background' },
      { key: 'configmaps/rel/free', propagationPolicy: 'Background' },
      { key: 'clusterroles/demo-reader', propagationPolicy: 'Background' },
    ]);
    expect(remaining).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'rel', name: 'blocked' }]);
    expect([...kube.objects.keys()]).toEqual(['configmaps/rel/blocked']);
  });

  it('counts a Terminating object as remaining and deletes it again on every pass', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'blocked', {
      finalizers: ['example.com/hold'],
      deletionTimestamp: '2024-01-01T00:00:00Z',
    });
    for (let pass = 1; pass <= 2; pass++) {
      const { remaining } = await run(kube);
      expect(remaining).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'rel', name: 'blocked' }]);
      expect(deletes(kube)).toHaveLength(pass);
    }
    kube.objects.delete('configmaps/rel/blocked'); // the finalizer was removed, so the server deleted it
    await expect(run(kube)).resolves.toEqual({ remaining: [] });
  });

  it('puts namespaced objects without a namespace in the release namespace and gives cluster-scoped ones none', async () => {
    const kube = server();
    kube.add(serviceAccounts, 'other', 'demo', { finalizers: ['x'] });
    kube.add(clusterRoles, '', 'demo-reader', { finalizers: ['x'] });
    kube.add(configMaps, 'rel', 'free', { finalizers: ['x'] });
    const { remaining } = await run(kube);
    expect(remaining).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'rel', name: 'free' },
      { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'other', name: 'demo' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'demo-reader' },
    ]);
    expect(remaining[2]).not.toHaveProperty('namespace');
  });

  it('ignores a namespace set on a cluster-scoped object', async () => {
    const kube = server();
    kube.add(clusterRoles, '', 'demo-reader', { finalizers: ['x'] });
    const manifest = doc(
      'role.yaml',
      'rbac.authorization.k8s.io/v1',
      'ClusterRole',
      '  name: demo-reader\n  namespace: x',
    );
    await expect(run(kube, manifest)).resolves.toEqual({
      remaining: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'demo-reader' }],
    });
  });

  it('skips objects with the keep resource policy, and, like Helm, objects with any other resource policy', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'kept');
    kube.add(configMaps, 'rel', 'odd-policy');
    const manifest = [
      doc('kept.yaml', 'v1', 'ConfigMap', '  name: kept\n  annotations:\n    helm.sh/resource-policy: " Keep "'),
      doc('odd.yaml', 'v1', 'ConfigMap', '  name: odd-policy\n  annotations:\n    helm.sh/resource-policy: delete'),
    ].join('');
    await expect(run(kube, manifest)).resolves.toEqual({ remaining: [] });
    expect(kube.keysOf('get')).toEqual([]);
    expect(deletes(kube)).toEqual([]);
  });

  it('counts objects of a kind the server no longer serves as gone, and discovers each kind once', async () => {
    const kube = server();
    const manifest = [
      doc('a.yaml', 'example.com/v1', 'Widget', '  name: a'),
      doc('b.yaml', 'example.com/v1', 'Widget', '  name: b'),
      doc('c.yaml', 'v1', 'ConfigMap', '  name: c'),
      doc('d.yaml', 'v1', 'ConfigMap', '  name: d'),
    ].join('');
    await expect(run(kube, manifest)).resolves.toEqual({ remaining: [] });
    expect(kube.callsOf('discover').map((c) => c.gvk)).toEqual([
      { group: 'example.com', version: 'v1', kind: 'Widget' },
      { group: '', version: 'v1', kind: 'ConfigMap' },
    ]);
    expect(kube.keysOf('get')).toEqual(['configmaps/rel/c', 'configmaps/rel/d']);
  });

  it('checks an object listed twice once', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'twice', { finalizers: ['x'] });
    const manifest =
      doc('a.yaml', 'v1', 'ConfigMap', '  name: twice') + doc('b.yaml', 'v1', 'ConfigMap', '  name: twice');
    const { remaining } = await run(kube, manifest);
    expect(remaining).toHaveLength(1);
    expect(deletes(kube)).toHaveLength(1);
  });

  it('expands List documents', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'item', { finalizers: ['x'] });
    const manifest =
      '---\n# Source: demo/templates/list.yaml\napiVersion: v1\nkind: ConfigMapList\nitems:\n  - metadata: {name: item}\n';
    await expect(run(kube, manifest)).resolves.toEqual({
      remaining: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'rel', name: 'item' }],
    });
  });

  it('tolerates an object that disappears between its GET and its DELETE', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'free');
    kube.on('after', { verb: 'get', key: 'configmaps/rel/free' }, (c) => kube.objects.delete(c.key));
    await expect(run(kube)).resolves.toEqual({ remaining: [] });
    expect(deletes(kube)).toEqual([{ key: 'configmaps/rel/free', propagationPolicy: 'Background' }]);
  });

  it('propagates GET, DELETE and discovery errors other than NotFound', async () => {
    const forbidden = new ForbiddenError({ status: 403 });
    const onGet = server();
    onGet.failOn({ verb: 'get', key: 'configmaps/rel/free' }, forbidden);
    await expect(run(onGet)).rejects.toBe(forbidden);

    const onDelete = server();
    onDelete.add(configMaps, 'rel', 'free');
    onDelete.failOn({ verb: 'delete', key: 'configmaps/rel/free' }, forbidden);
    await expect(run(onDelete)).rejects.toBe(forbidden);

    const onDiscover = server();
    const unavailable = new KubeApiError({ status: 503 });
    onDiscover.failOn({ verb: 'discover', kind: 'ServiceAccount' }, unavailable);
    await expect(run(onDiscover)).rejects.toBe(unavailable);
  });

  it('rejects a malformed manifest without talking to the server', async () => {
    const kube = server();
    const manifest = `${MANIFEST}---\n# Source: demo/templates/broken.yaml\nkind: [\n`;
    await expect(run(kube, manifest)).rejects.toBeInstanceOf(ManifestParseError);
    await expect(run(kube, manifest)).rejects.toThrow(/demo\/templates\/broken\.yaml/);
    expect(kube.callsOf('discover').map((c) => c.gvk)).toEqual([]);
  });

  it('stops when the signal is aborted', async () => {
    const kube = server();
    kube.add(configMaps, 'rel', 'free');
    const aborted = new AbortController();
    const reason = new Error('shutting down');
    aborted.abort(reason);
    await expect(run(kube, MANIFEST, aborted.signal)).rejects.toBe(reason);
    expect(deletes(kube)).toEqual([]);
  });
});
