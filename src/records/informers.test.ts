import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { releaseJson, releaseSecret } from '../../test/fakes/helm-secret.js';
import { FakeKubeApi, secrets } from '../../test/fakes/kube-api.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import type { KubeObject } from '../kube/types.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import type { ShardTermsOf } from '../leader/shards.js';
import { releaseInformers } from './informers.js';

const signal = new AbortController().signal;
const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

async function eventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function started(objects: KubeObject[], shardTerms?: ShardTermsOf) {
  const kube = new FakeKubeApi({ objects });
  const informers = releaseInformers({
    kube,
    namespaces: ['apps'],
    shardTerms,
    clock: new FakeClock(),
    logger: recordingLogger().logger,
  });
  const stop = new AbortController();
  stops.push(stop);
  void informers.run(stop.signal);
  return { kube, informers };
}

function record(version: number, status: string, name = 'web', shard?: string): KubeObject {
  const secret = releaseSecret(releaseJson({ name, namespace: 'apps', version, status }));
  const labels = { ...secret.metadata.labels, ...(shard === undefined ? {} : { [SHARD_LABEL]: shard }) };
  return {
    ...secret,
    metadata: {
      ...secret.metadata,
      name: `sh.helm.release.v1.${name}.v${version}`,
      uid: `uid-${name}-${version}`,
      labels,
    },
  };
}

/** Shard terms driven by the test: `take(k)` opens shard k's term, `give(k)` ends it. */
function terms() {
  const open = new Map<number, AbortController>();
  let opener: ((shard: number, signal: AbortSignal) => void) | undefined;
  const of: ShardTermsOf = (o) => {
    opener = o;
    return { start: () => {} };
  };
  return {
    of,
    take(shard: number) {
      const c = new AbortController();
      open.set(shard, c);
      opener?.(shard, c.signal);
    },
    give(shard: number) {
      open.get(shard)?.abort();
    },
  };
}

const versionsOf = async (informers: ReturnType<typeof started>['informers'], release: string) =>
  (await informers.reader.history('apps', release, { signal })).map((h) => h.release.version);

describe('releaseInformers', () => {
  it('drops a decoded record as soon as its Secret is deleted (an uninstall leaves nothing decoded behind)', async () => {
    const { kube, informers } = started([record(1, 'deployed')]);
    await eventually(() => kube.watches.length > 0);
    expect((await informers.reader.history('apps', 'web', { signal })).map((h) => h.release.version)).toEqual([1]);
    expect(informers.cacheStats().records).toBe(1);
    await kube.delete(secrets, 'apps', 'sh.helm.release.v1.web.v1', { signal });
    await eventually(() => informers.cacheStats().records === 0);
    expect(await informers.reader.history('apps', 'web', { signal })).toEqual([]);
  });

  describe('when sharded', () => {
    it("holds only the records of the shards held, and drops a shard's records when it is given back", async () => {
      const t = terms();
      const { kube, informers } = started([record(1, 'deployed', 'web', '0'), record(1, 'deployed', 'db', '1')], t.of);
      t.take(1);
      await eventually(() => kube.watches.length > 0);
      const selectors = kube.watches.map((w) => w.options.labelSelector);
      expect(selectors).toEqual([`owner=helm,${SHARD_LABEL}=1`]);
      // The first read of each release LISTs; afterwards shard 1's comes from the cache.
      expect(await versionsOf(informers, 'db')).toEqual([1]);
      expect(informers.reader.cachedRecords('apps', 'db')?.map((r) => r.metadata.name)).toEqual([
        'sh.helm.release.v1.db.v1',
      ]);
      expect(informers.reader.cachedRecords('apps', 'web')).toEqual(undefined); // never read: not trusted
      t.give(1);
      await eventually(() => informers.reader.cachedRecords('apps', 'db') === undefined);
    });
  });
});
