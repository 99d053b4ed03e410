import { describe, expect, it } from 'vitest';
import { builtinKind, builtinKinds, groupOf, pluralize, versionOf } from './kinds.js';

describe('pluralize', () => {
  it.each([
    ['Nginx', 'nginxes'],
    ['Memcached', 'memcacheds'],
    ['Policy', 'policies'],
    ['Key', 'keys'],
    ['Bus', 'buses'],
    ['Quiz', 'quizes'],
    ['Batch', 'batches'],
    ['Mesh', 'meshes'],
    ['WebApp', 'webapps'],
  ])('makes the CRD plural of %s: %s', (kind, plural) => {
    expect(pluralize(kind)).toBe(plural);
  });
});

describe('apiVersion parts', () => {
  it('splits the core group and named groups', () => {
    expect([groupOf('v1'), versionOf('v1')]).toEqual(['', 'v1']);
    expect([groupOf('networking.k8s.io/v1'), versionOf('networking.k8s.io/v1')]).toEqual(['networking.k8s.io', 'v1']);
  });
});

describe('the built-in kinds', () => {
  it('knows the standard kinds with their resource and scope, whatever the version', () => {
    expect(builtinKind('apps', 'Deployment')).toEqual({
      group: 'apps',
      kind: 'Deployment',
      resource: 'deployments',
      namespaced: true,
    });
    expect(builtinKind('', 'Namespace')).toMatchObject({ resource: 'namespaces', namespaced: false });
    expect(builtinKind('networking.k8s.io', 'Ingress')).toMatchObject({ resource: 'ingresses', namespaced: true });
    expect(builtinKind('rbac.authorization.k8s.io', 'ClusterRole')).toMatchObject({ namespaced: false });
    expect(builtinKind('monitoring.coreos.com', 'ServiceMonitor')).toMatchObject({ resource: 'servicemonitors' });
  });

  it('does not guess kinds it does not have, nor a kind in the wrong group', () => {
    expect(builtinKind('gateway.networking.k8s.io', 'HTTPRoute')).toBeUndefined();
    expect(builtinKind('extensions', 'Deployment')).toBeUndefined();
  });

  it("lists the brief's kinds once each, with lowercase plural resources", () => {
    const all = builtinKinds();
    expect(new Set(all.map((k) => `${k.group}/${k.kind}`)).size).toBe(all.length);
    for (const k of all) expect(k.resource).toMatch(/^[a-z]+$/);
    expect(all.length).toBeGreaterThanOrEqual(45);
  });
});
