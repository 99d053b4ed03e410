import { describe, expect, it } from 'vitest';
import {
  apiVersionOf,
  discoveryPath,
  groupVersionPath,
  parseApiVersion,
  patchContentType,
  queryString,
  resourcePath,
} from './paths.js';
import type { ApiResource } from './types.js';

const configMaps: ApiResource = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const widgets: ApiResource = {
  group: 'example.com',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};
const crds: ApiResource = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

describe('resourcePath', () => {
  it('builds core-group paths under /api and other groups under /apis', () => {
    expect(resourcePath(configMaps, { namespace: 'ns', name: 'cm' })).toBe('/api/v1/namespaces/ns/configmaps/cm');
    expect(resourcePath(widgets, { namespace: 'ns', name: 'w' })).toBe(
      '/apis/example.com/v1alpha1/namespaces/ns/widgets/w',
    );
  });

  it('addresses the collection of one namespace, or of all namespaces when the namespace is empty', () => {
    expect(resourcePath(configMaps, { namespace: 'ns' })).toBe('/api/v1/namespaces/ns/configmaps');
    expect(resourcePath(configMaps, { namespace: '' })).toBe('/api/v1/configmaps');
    expect(resourcePath(configMaps)).toBe('/api/v1/configmaps');
  });

  it('appends a subresource after the name', () => {
    expect(resourcePath(widgets, { namespace: 'ns', name: 'w', subresource: 'status' })).toBe(
      '/apis/example.com/v1alpha1/namespaces/ns/widgets/w/status',
    );
  });

  it('ignores a namespace for cluster-scoped resources', () => {
    expect(resourcePath(crds, { namespace: 'ignored', name: 'widgets.example.com' })).toBe(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
    );
  });

  it('escapes names so they cannot change the path', () => {
    expect(resourcePath(configMaps, { namespace: 'ns', name: 'a/b?c' })).toBe(
      '/api/v1/namespaces/ns/configmaps/a%2Fb%3Fc',
    );
  });

  it('rejects items of namespaced resources without a namespace, empty names and dot segments', () => {
    expect(() => resourcePath(configMaps, { name: 'cm' })).toThrow(/namespaced/);
    expect(() => resourcePath(configMaps, { namespace: 'ns', name: '' })).toThrow(/must not be empty/);
    expect(() => resourcePath(configMaps, { namespace: 'ns', name: '..' })).toThrow(/invalid/);
    expect(() => resourcePath(configMaps, { namespace: 'ns', subresource: 'status' })).toThrow(/needs a name/);
  });
});

describe('group/version helpers', () => {
  it('splits and joins apiVersion strings', () => {
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
    expect(apiVersionOf({ group: '', version: 'v1' })).toBe('v1');
    expect(apiVersionOf({ group: 'apps', version: 'v1' })).toBe('apps/v1');
  });

  it('points discovery at /api/v1 or /apis/<group>/<version>', () => {
    expect(discoveryPath({ group: '', version: 'v1' })).toBe('/api/v1');
    expect(discoveryPath({ group: 'apps', version: 'v1' })).toBe('/apis/apps/v1');
    expect(() => groupVersionPath('apps', '')).toThrow(/version/);
  });
});

describe('queryString', () => {
  it('keeps defined, non-empty values, stringified and escaped', () => {
    expect(
      queryString({ labelSelector: 'app=x,tier in (a,b)', limit: 3, watch: true, continue: undefined, field: '' }),
    ).toBe('?labelSelector=app%3Dx%2Ctier+in+%28a%2Cb%29&limit=3&watch=true');
  });

  it('is empty when nothing remains', () => {
    expect(queryString({ a: undefined, b: '' })).toBe('');
  });
});

describe('patchContentType', () => {
  it('maps each patch type to its content type', () => {
    expect(patchContentType('merge')).toBe('application/merge-patch+json');
    expect(patchContentType('json')).toBe('application/json-patch+json');
    expect(patchContentType('strategic')).toBe('application/strategic-merge-patch+json');
    expect(patchContentType('apply')).toBe('application/apply-patch+yaml');
  });
});
