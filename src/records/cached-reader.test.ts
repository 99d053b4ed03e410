import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chain } from '../helm/middleware.js';
import { releaseFromSecret } from '../helm/release.js';
import type { AppliedRelease, HelmClient } from '../helm/types.js';
import { NotFoundError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { ReleaseCache } from './cache.js';
import { CachedReleaseReader, recordObserver } from './cached-reader.js';
import type { StoredRelease } from './types.js';

const signal = new AbortController().signal;

/** A Helm release Secret as the API returns it (data.release = base64(base64(gzip(json)))). */
function secret(version: number, status: string, rv: string): KubeObject {
  const json = {
    name: 'web',
    namespace: 'apps',
    version,
    info: { status },
    chart: { metadata: { name: 'nginx', version: '0.1.0' } },
    manifest: `# v${version}`,
  };
  const payload = gzipSync(Buffer.from(JSON.stringify(json))).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: {
      name: `sh.helm.release.v1.web.v${version}`,
      namespace: 'apps',
      uid: `uid-${version}`,
      resourceVersion: rv,
      labels: { owner: 'helm', name: 'web', version: String(version), status },
    },
    data: { release: Buffer.from(payload).toString('base64') },
  };
}
const meta = (s: KubeObject): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: s.metadata });

function world(server: KubeObject[], cached: KubeObject[] = server, synced = true, trustUnseen = true) {
  const calls: string[] = [];
  const state = { server, cached, synced };
  const cache = new ReleaseCache();
  const reader = new CachedReleaseReader({
    kube: {
      async get(_res, _ns, name) {
        calls.push(`GET ${name}`);
        const found = state.server.find((s) => s.metadata.name === name);
        if (!found) throw new NotFoundError({ status: 404, reason: 'NotFound' });
        return found;
      },
    },
    view: { synced: () => state.synced, records: () => state.cached.map(meta) },
    listed: {
      async history(): Promise<StoredRelease[]> {
        calls.push('LIST');
        return state.server.map((s) => ({
          release: cache.get(
            { owner: 'apps/web', uid: s.metadata.uid ?? '', resourceVersion: s.metadata.resourceVersion ?? '' },
            () => releaseFromSecret(s),
          ),
          labels: s.metadata.labels ?? {},
        }));
      },
    },
    cache,
    trustUnseen,
  });
  const versions = async () =>
    (await reader.history('apps', 'web', { signal })).map((h) => `${h.release.version}:${h.release.info.status}`);
  return { calls, state, reader, versions, cache };
}

describe('CachedReleaseReader', () => {
  describe("when the view shows only one shard's records (trustUnseen false)", () => {
    it('LISTs a release on its first read, since its older records may lack the shard label', async () => {
      const w = world([secret(1, 'deployed', '10')], [], true, false);
      expect(await w.versions()).toEqual(['1:deployed']);
      expect(w.calls).toEqual(['LIST']);
    });

    it('reads it from the view once the view shows what the LIST found', async () => {
      const s1 = secret(1, 'deployed', '10');
      const w = world([s1], [s1], true, false);
      await w.versions();
      w.calls.length = 0;
      expect(await w.versions()).toEqual(['1:deployed']);
      expect(w.calls).toEqual([]);
    });

    it('trusts the view without a LIST for a CR never reconciled (all its records carry the label)', async () => {
      const w = world([], [], true, false);
      expect((await w.reader.history('apps', 'web', { signal, neverReconciled: true })).length).toBe(0);
      expect(w.calls).toEqual([]);
    });

    it('still LISTs a CR never reconciled once a helm call on it failed (what it left is unknown)', async () => {
      const w = world([secret(1, 'failed', '10')], [], true, false);
      w.reader.observe('apps', 'web', 'unknown');
      expect((await w.reader.history('apps', 'web', { signal, neverReconciled: true })).length).toBe(1);
      expect(w.calls).toEqual(['LIST']);
    });

    it('goes on LISTing while the view lacks the records the LIST found (not yet relabelled)', async () => {
      const w = world([secret(1, 'deployed', '10')], [], true, false);
      await w.versions();
      expect(await w.versions()).toEqual(['1:deployed']);
      expect(w.calls).toEqual(['LIST', 'LIST']);
    });
  });

  it('reads a release with no records from the cache without any request', async () => {
    const w = world([]);
    expect(await w.versions()).toEqual([]);
    expect(w.calls).toEqual([]);
  });

  it('GETs a record new to the cache once, then serves it from the cache while its resourceVersion stands', async () => {
    const w = world([secret(1, 'deployed', '10')]);
    expect(await w.versions()).toEqual(['1:deployed']);
    expect(await w.versions()).toEqual(['1:deployed']);
    expect(w.calls).toEqual(['GET sh.helm.release.v1.web.v1']);
  });

  it('keeps no decoded copy of a revision once a newer one is deployed', async () => {
    const w = world([secret(1, 'deployed', '10')]);
    await w.versions();
    w.state.server = [secret(1, 'superseded', '11'), secret(2, 'deployed', '12')];
    w.state.cached = w.state.server;
    expect(await w.versions()).toEqual(['2:deployed']);
    expect(w.cache.stats().records).toBe(1);
  });

  it('LISTs when the cache has not synced', async () => {
    const unsynced = world([secret(1, 'deployed', '10')], [], false);
    await unsynced.versions();
    expect(unsynced.calls).toEqual(['LIST']);
  });

  it('reads only the newest and the newest deployed record, however long the history', async () => {
    const long = world([secret(1, 'superseded', '10'), secret(2, 'superseded', '11'), secret(3, 'deployed', '12')]);
    expect(await long.versions()).toEqual(['3:deployed']);
    expect(long.calls).toEqual(['GET sh.helm.release.v1.web.v3']);
    const failed = world([secret(1, 'superseded', '10'), secret(2, 'deployed', '11'), secret(3, 'failed', '12')]);
    expect(await failed.versions()).toEqual(['2:deployed', '3:failed']);
    expect(failed.calls).toEqual(['GET sh.helm.release.v1.web.v2', 'GET sh.helm.release.v1.web.v3']);
  });

  it('does not trust a cache that lags behind what our own helm just did, and LISTs instead', async () => {
    const w = world([secret(1, 'pending-install', '10')]);
    const helm = chain(
      {
        install: async () =>
          ({ name: 'web', namespace: 'apps', version: 1, info: { status: 'deployed' } }) as AppliedRelease,
      } as unknown as HelmClient,
      [recordObserver(w.reader)],
    );
    await helm.install({ release: 'web', namespace: 'apps', chart: 'c', values: {}, signal } as never);
    w.state.server = [secret(1, 'deployed', '11')]; // the API server has it; the watch has not delivered it yet
    expect(await w.versions()).toEqual(['1:deployed']);
    expect(w.calls).toEqual(['LIST']);
    w.state.cached = w.state.server; // the watch caught up
    expect(await w.versions()).toEqual(['1:deployed']);
    expect(w.calls).toEqual(['LIST']);
  });

  it('hands out every cached record of a release only while the cache is synced and shows what our helm did', async () => {
    const w = world([secret(1, 'superseded', '10'), secret(2, 'deployed', '11')]);
    expect(w.reader.cachedRecords('apps', 'web')?.map((r) => r.metadata.name)).toEqual([
      'sh.helm.release.v1.web.v1',
      'sh.helm.release.v1.web.v2',
    ]);
    w.reader.observe('apps', 'web', { version: 3, status: 'deployed' }); // our helm upgraded it; the watch lags
    expect(w.reader.cachedRecords('apps', 'web')).toBeUndefined();
    w.reader.observe('apps', 'web', 'unknown');
    expect(w.reader.cachedRecords('apps', 'web')).toBeUndefined();
    w.reader.observe('apps', 'web', { version: 2, status: 'deployed' });
    expect(w.reader.cachedRecords('apps', 'web')?.length).toBe(2);
    w.state.synced = false;
    expect(w.reader.cachedRecords('apps', 'web')).toBeUndefined();
    expect(w.calls).toEqual([]);
  });

  it('after a failed helm call, or an uninstall the cache still shows, reads with a LIST', async () => {
    const w = world([secret(1, 'deployed', '10')]);
    const failing = chain(
      {
        upgrade: async () => {
          throw new Error('helm failed');
        },
        uninstall: async () => {},
      } as unknown as HelmClient,
      [recordObserver(w.reader)],
    );
    await expect(failing.upgrade({ release: 'web', namespace: 'apps' } as never)).rejects.toThrow('helm failed');
    await w.versions();
    expect(w.calls).toEqual(['LIST']);
    await failing.uninstall({ release: 'web', namespace: 'apps' } as never);
    w.state.server = [];
    expect(await w.versions()).toEqual([]);
    expect(w.calls).toEqual(['LIST', 'LIST']);
  });

  it('keeps trusting the cache after a dry-run upgrade, which writes no record (its result is the next revision)', async () => {
    const w = world([secret(1, 'deployed', '10')]);
    const dryRun = chain(
      {
        dryRunUpgrade: async () => ({ name: 'web', version: 2, info: { status: 'pending-upgrade' } }),
      } as unknown as HelmClient,
      [recordObserver(w.reader)],
    );
    await dryRun.dryRunUpgrade({ release: 'web', namespace: 'apps' } as never);
    expect(await w.versions()).toEqual(['1:deployed']);
    expect(w.calls).not.toContain('LIST');
  });

  it('falls back to a LIST when a cached record is gone by the time it is fetched', async () => {
    const w = world([], [secret(1, 'deployed', '10')]);
    expect(await w.versions()).toEqual([]);
    expect(w.calls).toEqual(['GET sh.helm.release.v1.web.v1', 'LIST']);
  });
});
