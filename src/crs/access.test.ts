import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { crAccess } from './access.js';

const res: ApiResource = {
  group: 'demo.example.com',
  version: 'v1',
  kind: 'Nginx',
  plural: 'nginxes',
  namespaced: true,
};
const cr = (name: string, rv: string): KubeObject => ({
  apiVersion: 'demo.example.com/v1',
  kind: 'Nginx',
  metadata: { name, namespace: 'apps', resourceVersion: rv },
});
const signal = new AbortController().signal;

function api(server: Map<string, KubeObject>) {
  const gets: string[] = [];
  const kube = {
    async get(_res: ApiResource, _ns: string, name: string) {
      gets.push(name);
      const found = server.get(name);
      if (!found) throw new NotFoundError({ status: 404, reason: 'NotFound' });
      return found;
    },
  } as unknown as KubeClient;
  return { kube, gets };
}

describe('crAccess', () => {
  it("reads the informer's copy without a request, and GETs the server's copy only for latest()", async () => {
    const { kube, gets } = api(new Map([['web', cr('web', '7')]]));
    const crs = crAccess(kube, res, { cache: { get: () => cr('web', '5'), synced: () => true } });
    expect((await crs.get('apps', 'web', { signal }))?.metadata.resourceVersion).toBe('5');
    expect(gets).toEqual([]);
    expect((await crs.latest?.('apps', 'web', { signal }))?.metadata.resourceVersion).toBe('7');
    expect(gets).toEqual(['web']);
  });

  it('treats a CR the synced cache does not hold as gone, without a GET', async () => {
    const { kube, gets } = api(new Map([['web', cr('web', '7')]]));
    const crs = crAccess(kube, res, { cache: { get: () => undefined, synced: () => true } });
    expect(await crs.get('apps', 'web', { signal })).toBeUndefined();
    expect(gets).toEqual([]);
  });

  it('GETs before the cache has synced, and without a cache', async () => {
    const { kube, gets } = api(new Map([['web', cr('web', '7')]]));
    const unsynced = crAccess(kube, res, { cache: { get: () => undefined, synced: () => false } });
    expect((await unsynced.get('apps', 'web', { signal }))?.metadata.resourceVersion).toBe('7');
    expect(await crAccess(kube, res).get('apps', 'gone', { signal })).toBeUndefined();
    expect(gets).toEqual(['web', 'gone']);
  });
});
