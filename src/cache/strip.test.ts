import { describe, expect, it } from 'vitest';
import type { ApiResource, KubeObject, WatchEvent } from '../kube/types.js';
import { ManifestPool } from './manifest-pool.js';
import { shareStatusManifest, stripManagedFields, transformingClient } from './strip.js';

const res: ApiResource = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const obj = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, resourceVersion: '1', managedFields: [{ manager: 'helm', operation: 'Update' }] },
  data: { k: 'v' },
});
const signal = new AbortController().signal;

describe('transformingClient', () => {
  it('stores listed and watched objects without managedFields, everything else unchanged', async () => {
    const events: WatchEvent[] = [];
    const client = transformingClient({
      list: async () => ({ items: [obj('a')], resourceVersion: '5' }),
      watch: async (_res, _o, onEvent) => {
        onEvent({ type: 'ADDED', object: obj('b') });
        onEvent({ type: 'ERROR', object: { kind: 'Status', code: 410 } });
      },
    });
    const listed = await client.list(res, { signal });
    expect(listed).toEqual({
      items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '1' }, data: { k: 'v' } }],
      resourceVersion: '5',
    });
    const watchOptions = { resourceVersion: '5', timeoutSeconds: 1, allowWatchBookmarks: true };
    await client.watch(res, watchOptions, (e) => events.push(e), signal);
    expect(events[0]).toEqual({
      type: 'ADDED',
      object: { ...obj('b'), metadata: { name: 'b', resourceVersion: '1' } },
    });
    expect(events[1]).toEqual({ type: 'ERROR', object: { kind: 'Status', code: 410 } });
  });

  it('returns an object without managedFields as it is', () => {
    const plain: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' } };
    expect(stripManagedFields(plain)).toBe(plain);
  });

  it("asks the pool for the copy of a CR's status manifest to keep, keyed by namespace and release name", () => {
    const asked: string[] = [];
    const pool = new (class extends ManifestPool {
      override share(release: string, text: string): string {
        asked.push(`${release}: ${text}`);
        return super.share(release, text);
      }
    })();
    const cr = {
      apiVersion: 'demo/v1',
      kind: 'Nginx',
      metadata: { name: 'web', namespace: 'apps' },
      spec: {},
      status: { conditions: [], deployedRelease: { name: 'web-rel', manifest: 'kind: Service' } },
    } as KubeObject;
    const shared = shareStatusManifest(cr, pool);
    expect(shared).toEqual(cr);
    expect(asked).toEqual(['apps/web-rel: kind: Service']);
    const withoutRelease = { ...cr, status: { conditions: [] } } as KubeObject;
    expect(shareStatusManifest(withoutRelease, pool)).toBe(withoutRelease);
    const plain = obj('c');
    expect(shareStatusManifest(plain, pool)).toBe(plain);
    expect(asked).toHaveLength(1);
  });
});
