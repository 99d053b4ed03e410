import { describe, expect, it } from 'vitest';
import { clusterRoles, configMaps, FakeKubeApi, roles, serviceAccounts } from '../../test/fakes/kube-api.js';
import { silentLogger } from '../core/logger.js';
import type { ApiResource, DeleteOptions } from '../kube/types.js';
import { deleteOrphans, OutsideObjectMemo, outsideObjects, outsideObjectsOrNone } from './orphans.js';

/** A server for the given kinds (by default those the old object-server fake served). */
const server = (served: ApiResource[] = [configMaps, serviceAccounts, clusterRoles, roles]) =>
  new FakeKubeApi({ served });
const deletes = (kube: FakeKubeApi) =>
  kube
    .callsOf('delete')
    .map((c) => ({ key: c.key, propagationPolicy: (c.options as DeleteOptions).propagationPolicy }));

const doc = (apiVersion: string, kind: string, metadata: string) =>
  `---\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n${metadata}\n`;
const MANIFEST = [
  doc('v1', 'ConfigMap', '  name: here'),
  doc('v1', 'ConfigMap', '  name: also-here\n  namespace: app'),
  doc('rbac.authorization.k8s.io/v1', 'ClusterRole', '  name: app-reader'),
  doc('rbac.authorization.k8s.io/v1', 'Role', '  name: app-leader\n  namespace: kube-system'),
  doc('rbac.authorization.k8s.io/v1', 'ClusterRole', '  name: kept\n  annotations:\n    helm.sh/resource-policy: keep'),
].join('');

const ours = { annotations: { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': 'app' } };

describe('outsideObjects', () => {
  it('lists objects in other namespaces and objects without a namespace, but not keep-policy ones', () => {
    expect(outsideObjects(MANIFEST, 'app')).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'here' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'app-reader' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', name: 'app-leader', namespace: 'kube-system' },
    ]);
  });

  it('finds none in a text that is no manifest (a capped status marker)', () => {
    expect(outsideObjectsOrNone('release manifest too large: see Secret sh.helm.release.v1.web.v3', 'app')).toEqual([]);
    expect(outsideObjectsOrNone('a: [unclosed', 'app')).toEqual([]);
  });
});

describe('OutsideObjectMemo', () => {
  it('parses a revision once and forgets a CR on request', () => {
    const memo = new OutsideObjectMemo();
    memo.remember('app/web', 'app', 1, MANIFEST);
    const first = memo.get('app/web');
    memo.remember('app/web', 'app', 1, 'not even parsed: same revision');
    expect(memo.get('app/web')).toBe(first);
    memo.remember('app/web', 'app', 2, doc('v1', 'ConfigMap', '  name: x\n  namespace: other'));
    expect(memo.get('app/web')).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'other' }]);
    memo.forget('app/web');
    expect(memo.get('app/web')).toBeUndefined();
  });
});

describe('OutsideObjectMemo attempts', () => {
  it('adds what helm was about to apply to what the deployed revision put outside, each once, until forgotten', () => {
    const memo = new OutsideObjectMemo();
    expect(memo.get('app/web')).toBeUndefined();
    // An install that never got deployed (it failed, or the namespace went first) is still known.
    memo.rememberAttempt('app/web', 'app', MANIFEST);
    expect(memo.get('app/web')).toHaveLength(3);
    memo.remember('app/web', 'app', 1, MANIFEST);
    memo.rememberAttempt('app/web', 'app', doc('networking.k8s.io/v1', 'IngressClass', '  name: nginx'));
    expect(memo.get('app/web')?.map((r) => `${r.kind}/${r.name}`)).toEqual([
      'ConfigMap/here',
      'ClusterRole/app-reader',
      'Role/app-leader',
      'IngressClass/nginx',
    ]);
    memo.forget('app/web');
    expect(memo.get('app/web')).toBeUndefined();
  });
});

describe('OutsideObjectMemo, an attempt the deployed revision lists', () => {
  it('answers what it would keeping every attempt, holding such an attempt once, through later revisions', () => {
    const memo = new OutsideObjectMemo();
    const names = () => memo.get('app/web')?.map((r) => `${r.kind}/${r.name}`);
    memo.rememberAttempt('app/web', 'app', MANIFEST);
    memo.remember('app/web', 'app', 1, MANIFEST);
    const deployed = memo.get('app/web');
    // Nothing attempted beyond the deployed revision: its own list is the answer, no second copy.
    expect(names()).toEqual(['ConfigMap/here', 'ClusterRole/app-reader', 'Role/app-leader']);
    memo.rememberAttempt('app/web', 'app', MANIFEST);
    expect(memo.get('app/web')).toBe(deployed);
    // A revision without them: they were attempted, so they are still answered (as helm might have left them).
    memo.remember('app/web', 'app', 2, doc('v1', 'ConfigMap', '  name: x\n  namespace: other'));
    expect(names()).toEqual(['ConfigMap/x', 'ConfigMap/here', 'ClusterRole/app-reader', 'Role/app-leader']);
    // Back to a revision listing them: each once.
    memo.remember('app/web', 'app', 3, MANIFEST);
    expect(names()).toEqual(['ConfigMap/here', 'ClusterRole/app-reader', 'Role/app-leader']);
    memo.remember('app/web', 'app', 4, doc('v1', 'ConfigMap', '  name: x\n  namespace: other'));
    expect(names()).toEqual(['ConfigMap/x', 'ConfigMap/here', 'ClusterRole/app-reader', 'Role/app-leader']);
  });
});

describe('deleteOrphans', () => {
  const run = (kube: FakeKubeApi) =>
    deleteOrphans({
      kube,
      refs: outsideObjects(MANIFEST, 'app'),
      release: 'web',
      namespace: 'app',
      signal: new AbortController().signal,
      logger: silentLogger,
    });

  it("deletes the release's cluster-scoped objects and its objects in other namespaces", async () => {
    const kube = server();
    kube.add(clusterRoles, '', 'app-reader', ours);
    kube.add(roles, 'kube-system', 'app-leader', ours);
    kube.add(configMaps, 'app', 'here', ours);
    const deleted = await run(kube);
    expect(deleted.map((d) => `${d.kind}/${d.namespace ?? ''}/${d.name}`)).toEqual([
      'ClusterRole//app-reader',
      'Role/kube-system/app-leader',
    ]);
    expect(deletes(kube)).toEqual([
      { key: 'clusterroles/app-reader', propagationPolicy: 'Background' },
      { key: 'roles/kube-system/app-leader', propagationPolicy: 'Background' },
    ]);
    // The object in the CR's own namespace is left to that namespace's deletion (or the garbage collector).
    expect(kube.objects.has('configmaps/app/here')).toBe(true);
  });

  it('leaves objects whose Helm annotations name another release or namespace, or none', async () => {
    const kube = server();
    kube.add(clusterRoles, '', 'app-reader', {
      annotations: { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': 'elsewhere' },
    });
    kube.add(roles, 'kube-system', 'app-leader', {});
    expect(await run(kube)).toEqual([]);
    expect(deletes(kube)).toEqual([]);
  });

  it('skips objects already gone and kinds the server no longer serves', async () => {
    const kube = server([configMaps, clusterRoles]);
    expect(await run(kube)).toEqual([]);
    expect(kube.keysOf('get')).toEqual(['clusterroles/app-reader']);
  });
});
