import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import { ManifestPool } from '../cache/manifest-pool.js';
import type { Release } from '../helm/types.js';
import { ReleaseCache } from './cache.js';

const release = (version: number, manifest = ''): Release => releaseRecord({ version, config: {}, manifest });

function counting(cache: ReleaseCache) {
  let decodes = 0;
  const get = (uid: string, resourceVersion: string, r: Release, owner = 'apps/web') =>
    cache.get({ owner, uid, resourceVersion }, () => {
      decodes++;
      return r;
    });
  return { get, decodes: () => decodes };
}

describe('ReleaseCache', () => {
  it('decodes a record once per resourceVersion, and again when the record changes', () => {
    const c = counting(new ReleaseCache());
    const v1 = release(1);
    expect(c.get('u1', '10', v1)).toBe(v1);
    expect(c.get('u1', '10', release(1))).toBe(v1);
    expect(c.decodes()).toBe(1);
    const superseded = { ...release(1), info: { status: 'superseded' as const } };
    expect(c.get('u1', '11', superseded)).toBe(superseded);
    expect(c.decodes()).toBe(2);
  });

  it('forgets the records its release no longer lists (pruned history, uninstall)', () => {
    const cache = new ReleaseCache();
    const c = counting(cache);
    c.get('u1', '10', release(1));
    c.get('u2', '12', release(2));
    c.get('x1', '13', release(1), 'apps/other');
    cache.retainOnly('apps/web', new Set(['u2']));
    expect(cache.stats().records).toBe(2);
    c.get('u1', '10', release(1));
    expect(c.decodes()).toBe(4);
    cache.retainOnly('apps/web', new Set());
    expect(cache.stats().records).toBe(1);
  });

  it('stays within its size bound, evicting the least recently used record first', () => {
    const big = 'x'.repeat(1000);
    const size = JSON.stringify(release(1, big)).length;
    const cache = new ReleaseCache({ maxChars: Math.floor(3.5 * size) });
    const c = counting(cache);
    c.get('a', '1', release(1, big));
    c.get('b', '1', release(1, big));
    c.get('c', '1', release(1, big));
    c.get('a', '1', release(1, big)); // a is now the most recently used
    c.get('d', '1', release(1, big));
    expect(cache.stats()).toEqual({ records: 3, chars: 3 * size });
    expect(c.decodes()).toBe(4);
    c.get('a', '1', release(1, big));
    expect(c.decodes()).toBe(4); // a survived
    c.get('b', '1', release(1, big));
    expect(c.decodes()).toBe(5); // b was evicted
  });

  it('does not keep a record larger than half the bound, nor one without uid or resourceVersion', () => {
    const cache = new ReleaseCache({ maxChars: 4000 });
    const c = counting(cache);
    c.get('huge', '1', release(1, 'x'.repeat(2100)));
    c.get('', '1', release(1));
    c.get('u', '', release(1));
    expect(cache.stats()).toEqual({ records: 0, chars: 0 });
  });

  it("shares a decoded record's manifest through the pool by release, and forgets it when the release is gone", () => {
    const calls: string[] = [];
    const pool = new (class extends ManifestPool {
      override share(release: string, text: string): string {
        calls.push(`share ${release} ${text}`);
        return super.share(release, text);
      }
      override forget(release: string): void {
        calls.push(`forget ${release}`);
        super.forget(release);
      }
    })();
    const cache = new ReleaseCache({ pool });
    const c = counting(cache);
    expect(c.get('u1', '10', release(1, 'kind: A')).manifest).toBe('kind: A');
    expect(c.get('u1', '10', release(1, 'kind: A')).manifest).toBe('kind: A');
    c.get('u2', '10', release(2));
    cache.forgetRelease('apps/web');
    expect(calls).toEqual(['share apps/web kind: A', 'forget apps/web']);
    expect(pool.size).toBe(0);
  });
});
