import { describe, expect, it } from 'vitest';
import type { KubeObject, ObjectMeta } from '../kube/types.js';
import { groupKindOf, PRIMARY_RESOURCE_ANNOTATION, PRIMARY_RESOURCE_TYPE_ANNOTATION } from '../ownership/rules.js';
import { ownerOf } from './mapping.js';

const CONTROLLER = {
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Nginx',
  name: 'web',
  uid: 'uid-1',
  controller: true,
};

function configMap(metadata: Partial<ObjectMeta>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', ...metadata } };
}

describe('groupKindOf', () => {
  it('joins the kind and the API group', () => {
    expect(groupKindOf('demo.example.com/v1alpha1', 'Nginx')).toBe('Nginx.demo.example.com');
    expect(groupKindOf('apps/v1', 'Deployment')).toBe('Deployment.apps');
  });

  it('gives the kind alone for the core group', () => {
    expect(groupKindOf('v1', 'ConfigMap')).toBe('ConfigMap');
  });
});

describe('ownerOf', () => {
  describe('when the owner reference is a controller reference', () => {
    it('maps the object to the CR of that name in the same namespace', () => {
      expect(ownerOf(configMap({ namespace: 'team', ownerReferences: [CONTROLLER] }))).toEqual({
        groupKind: 'Nginx.demo.example.com',
        key: 'team/web',
      });
    });

    it('maps a cluster-scoped object to the cluster-scoped CR by name alone', () => {
      expect(ownerOf(configMap({ ownerReferences: [CONTROLLER] }))).toEqual({
        groupKind: 'Nginx.demo.example.com',
        key: 'web',
      });
    });

    it('picks the controller among several references', () => {
      const other = { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'uid-2' };
      const obj = configMap({ namespace: 'team', ownerReferences: [other, CONTROLLER] });
      expect(ownerOf(obj)).toEqual({ groupKind: 'Nginx.demo.example.com', key: 'team/web' });
    });

    it('prefers the controller reference over primary-resource annotations', () => {
      const obj = configMap({
        namespace: 'team',
        ownerReferences: [CONTROLLER],
        annotations: { [PRIMARY_RESOURCE_ANNOTATION]: 'other/db', [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Db.x.io' },
      });
      expect(ownerOf(obj)?.key).toBe('team/web');
    });
  });

  describe('when the only owner references are not controller references', () => {
    it('maps the object to no CR', () => {
      const obj = configMap({ namespace: 'team', ownerReferences: [{ ...CONTROLLER, controller: false }] });
      expect(ownerOf(obj)).toBeUndefined();
    });
  });

  describe('when the object carries the primary-resource annotations', () => {
    it('maps it to the CR the annotations name', () => {
      const obj = configMap({
        annotations: {
          [PRIMARY_RESOURCE_ANNOTATION]: 'team/web',
          [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Nginx.demo.example.com',
        },
      });
      expect(ownerOf(obj)).toEqual({ groupKind: 'Nginx.demo.example.com', key: 'team/web' });
    });

    it('reads "/name" (a cluster-scoped CR) as the bare name', () => {
      const obj = configMap({
        annotations: { [PRIMARY_RESOURCE_ANNOTATION]: '/web', [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Nginx.demo.io' },
      });
      expect(ownerOf(obj)).toEqual({ groupKind: 'Nginx.demo.io', key: 'web' });
    });

    it('reads a core-group type written with a trailing dot as the kind alone', () => {
      const obj = configMap({
        annotations: { [PRIMARY_RESOURCE_ANNOTATION]: 'team/web', [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Nginx.' },
      });
      expect(ownerOf(obj)).toEqual({ groupKind: 'Nginx', key: 'team/web' });
    });

    it.each([
      ['the type annotation is missing', { [PRIMARY_RESOURCE_ANNOTATION]: 'team/web' }],
      ['the resource annotation is missing', { [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'Nginx.demo.io' }],
      [
        'the resource annotation is empty',
        { [PRIMARY_RESOURCE_ANNOTATION]: '', [PRIMARY_RESOURCE_TYPE_ANNOTATION]: 'N' },
      ],
    ])('maps it to no CR when %s', (_what, annotations) => {
      expect(ownerOf(configMap({ annotations }))).toBeUndefined();
    });
  });

  describe('when the object has no owner marks at all', () => {
    it('maps it to no CR', () => {
      expect(ownerOf(configMap({ namespace: 'team', labels: { app: 'web' } }))).toBeUndefined();
    });
  });
});
