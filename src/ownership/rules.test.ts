import { describe, expect, it } from 'vitest';
import { splitManifest } from '../helm/manifest.js';
import { transformManifest } from '../helm/manifest-edit.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import {
  applyOwnership,
  CHART_LABEL,
  type OwnershipContext,
  OwnershipError,
  PRIMARY_RESOURCE_ANNOTATION,
  PRIMARY_RESOURCE_TYPE_ANNOTATION,
  type ScopeOf,
} from './rules.js';

type Obj = Record<string, unknown>;

const OWNER = { apiVersion: 'demo.example.com/v1alpha1', kind: 'Nginx', name: 'web', namespace: 'team', uid: 'uid-1' };
const CTX: OwnershipContext = { owner: OWNER, chart: 'nginx', releaseNamespace: 'team' };
/** An ownerReference names no namespace: the dependent's own is implied. */
const CONTROLLER_REF = {
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Nginx',
  name: 'web',
  uid: 'uid-1',
  controller: true,
  blockOwnerDeletion: true,
};
const MARK_ANNOTATIONS = {
  [PRIMARY_RESOURCE_ANNOTATION]: 'team/web',
  [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Nginx.demo.example.com',
};

const SCOPES: Record<string, boolean> = {
  'v1/ConfigMap': true,
  'v1/Namespace': false,
  'apps/v1/Deployment': true,
  'rbac.authorization.k8s.io/v1/ClusterRole': false,
};
const scopeOf: ScopeOf = (apiVersion, kind) => SCOPES[`${apiVersion}/${kind}`];

function configMap(metadata: Obj): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', ...metadata }, data: { k: 'v' } };
}

function metadataOf(obj: Obj): Obj {
  return obj.metadata as Obj;
}

describe('applyOwnership', () => {
  describe('when an object is namespaced and in the owner namespace', () => {
    it('gets the chart label next to its own labels and a controller ownerReference to the CR', () => {
      const out = applyOwnership(configMap({ namespace: 'team', labels: { app: 'web' } }), CTX, scopeOf);
      expect(out).toEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'cm',
          namespace: 'team',
          labels: { app: 'web', [CHART_LABEL]: 'nginx' },
          ownerReferences: [CONTROLLER_REF],
        },
        data: { k: 'v' },
      });
    });

    it('counts as in the release namespace when it names no namespace or an empty one', () => {
      for (const metadata of [{}, { namespace: '' }]) {
        const out = metadataOf(applyOwnership(configMap(metadata), CTX, scopeOf));
        expect(out.ownerReferences).toEqual([CONTROLLER_REF]);
        expect(out.annotations).toBeUndefined();
      }
    });

    it('gets the shard label too when sharding is on, so only the replica holding the shard watches it', () => {
      const out = applyOwnership(configMap({ labels: { app: 'web' } }), { ...CTX, shard: '2' }, scopeOf);
      expect(metadataOf(out).labels).toEqual({ app: 'web', [CHART_LABEL]: 'nginx', [SHARD_LABEL]: '2' });
      expect(metadataOf(applyOwnership(configMap({}), CTX, scopeOf)).labels).toEqual({ [CHART_LABEL]: 'nginx' });
    });

    it('replaces the chart label a template set itself', () => {
      const out = applyOwnership(configMap({ labels: { [CHART_LABEL]: 'other' } }), CTX, scopeOf);
      expect(metadataOf(out).labels).toEqual({ [CHART_LABEL]: 'nginx' });
    });

    it('never mutates its input', () => {
      const input = deepFreeze(configMap({ labels: { app: 'web' }, ownerReferences: [{ uid: 'x' }] }));
      const copy = structuredClone(input);
      expect(applyOwnership(input, CTX, scopeOf)).not.toBe(input);
      expect(input).toEqual(copy);
    });
  });

  describe('when an object is cluster-scoped', () => {
    it('gets the CR-typed primary-resource annotations and no ownerReference', () => {
      const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } };
      const out = applyOwnership(role, CTX, scopeOf);
      expect(out).toEqual({
        ...role,
        metadata: { name: 'reader', labels: { [CHART_LABEL]: 'nginx' }, annotations: MARK_ANNOTATIONS },
      });
    });

    it('gets the annotations even when the template sets a namespace on it', () => {
      const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', namespace: 'team' } };
      const out = metadataOf(applyOwnership(ns, CTX, scopeOf));
      expect(out.ownerReferences).toBeUndefined();
      expect(out.annotations).toEqual(MARK_ANNOTATIONS);
    });
  });

  describe('when an object is in another namespace', () => {
    it('keeps its own annotations, gains the primary-resource ones and gets no ownerReference', () => {
      const out = metadataOf(applyOwnership(configMap({ namespace: 'other', annotations: { a: 'b' } }), CTX, scopeOf));
      expect(out.ownerReferences).toBeUndefined();
      expect(out.annotations).toEqual({ a: 'b', ...MARK_ANNOTATIONS });
    });

    it('counts as there when it names no namespace and the release is installed there', () => {
      const out = metadataOf(applyOwnership(configMap({}), { ...CTX, releaseNamespace: 'other' }, scopeOf));
      expect(out.ownerReferences).toBeUndefined();
      expect(out.annotations).toEqual(MARK_ANNOTATIONS);
    });
  });

  describe('when an object has helm.sh/resource-policy: keep', () => {
    it('gets the primary-resource annotations instead of an ownerReference, so deleting the CR keeps it', () => {
      for (const policy of ['keep', ' Keep ']) {
        const annotations = { 'helm.sh/resource-policy': policy };
        const out = metadataOf(applyOwnership(configMap({ annotations }), CTX, scopeOf));
        expect(out.ownerReferences).toBeUndefined();
        expect(out.annotations).toEqual({ ...annotations, ...MARK_ANNOTATIONS });
      }
    });

    it('still gets an ownerReference for any other policy value', () => {
      const annotations = { 'helm.sh/resource-policy': 'delete' };
      const out = metadataOf(applyOwnership(configMap({ annotations }), CTX, scopeOf));
      expect(out.ownerReferences).toEqual([CONTROLLER_REF]);
      expect(out.annotations).toEqual(annotations);
    });
  });

  describe('when an object already has ownerReferences', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: 'uid-2' };

    it('keeps them and appends the controller reference', () => {
      const out = metadataOf(applyOwnership(configMap({ ownerReferences: [other] }), CTX, scopeOf));
      expect(out.ownerReferences).toEqual([other, CONTROLLER_REF]);
    });

    it('replaces a reference to the same uid in place instead of adding a duplicate', () => {
      const stale = { apiVersion: 'demo.example.com/v1', kind: 'Nginx', name: 'web', uid: 'uid-1' };
      const refs = [stale, other, { ...stale, controller: false }];
      const out = metadataOf(applyOwnership(configMap({ ownerReferences: refs }), CTX, scopeOf));
      expect(out.ownerReferences).toEqual([CONTROLLER_REF, other]);
    });
  });

  describe('when another owner already controls the object', () => {
    it('adds no second controller reference but the primary-resource annotations', () => {
      const controller = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'uid-2', controller: true };
      const out = metadataOf(applyOwnership(configMap({ ownerReferences: [controller] }), CTX, scopeOf));
      expect(out.ownerReferences).toEqual([controller]);
      expect(out.annotations).toEqual(MARK_ANNOTATIONS);
    });
  });

  describe('when the API server does not serve the kind', () => {
    const widget = (metadata: Obj): Obj => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata });

    it('treats the object as namespaced when it names a namespace', () => {
      const out = metadataOf(applyOwnership(widget({ name: 'w', namespace: 'team' }), CTX, scopeOf));
      expect(out.ownerReferences).toEqual([CONTROLLER_REF]);
    });

    it('throws an OwnershipError naming the kind and the object when it names no namespace', () => {
      const err = catchError(() => applyOwnership(widget({ name: 'w' }), CTX, scopeOf));
      expect(err).toBeInstanceOf(OwnershipError);
      expect(err).toMatchObject({ code: 'OWNERSHIP_UNKNOWN_KIND' });
      expect((err as Error).message).toMatch(/Widget "w" \(example\.com\/v1\).*API server does not serve/);
    });
  });

  describe('when an object has no apiVersion or kind', () => {
    it('throws an OwnershipError', () => {
      expect(() => applyOwnership({ metadata: { name: 'x' } }, CTX, scopeOf)).toThrow(OwnershipError);
    });
  });

  describe('when the chart name is not a valid label value', () => {
    it('throws an OwnershipError that names the chart', () => {
      for (const chart of ['c'.repeat(64), 'my chart', '-nginx', 'nginx_', '']) {
        const err = catchError(() => applyOwnership(configMap({}), { ...CTX, chart }, scopeOf));
        expect(err).toBeInstanceOf(OwnershipError);
        expect(err).toMatchObject({ code: 'OWNERSHIP_INVALID' });
        expect((err as Error).message).toContain(JSON.stringify(chart));
      }
      expect(() => applyOwnership(configMap({}), { ...CTX, chart: `a.b_c-${'d'.repeat(57)}` }, scopeOf)).not.toThrow();
    });
  });

  describe('when the owner is in the core group', () => {
    it('writes its bare Kind as the primary-resource type', () => {
      const owner = { ...OWNER, apiVersion: 'v1', kind: 'Service' };
      const out = metadataOf(applyOwnership(configMap({ namespace: 'other' }), { ...CTX, owner }, scopeOf));
      expect(out.annotations).toMatchObject({ [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Service' });
    });
  });
});

describe('when the post-renderer applies ownership to a rendered manifest', () => {
  it('marks every object and keeps the templates Helm reads back', () => {
    const manifest = `---
# Source: nginx/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels: {app: web}
data:
  enabled: 'yes'
---
# Source: nginx/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules: []
`;
    const out = transformManifest(manifest, (obj) => applyOwnership(obj, CTX, scopeOf));
    expect(out).toBe(`---
# Source: nginx/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels:
    app: web
    helm.sdk.operatorframework.io/chart: nginx
  ownerReferences:
    - apiVersion: demo.example.com/v1alpha1
      kind: Nginx
      name: web
      uid: uid-1
      controller: true
      blockOwnerDeletion: true
data:
  enabled: 'yes'
---
# Source: nginx/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
  labels:
    helm.sdk.operatorframework.io/chart: nginx
  annotations:
    operator-sdk/primary-resource: team/web
    operator-sdk/primary-resource-type: Nginx.demo.example.com
rules: []
`);
    expect(splitManifest(out).map((o) => o.source)).toEqual(['nginx/templates/cm.yaml', 'nginx/templates/role.yaml']);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
