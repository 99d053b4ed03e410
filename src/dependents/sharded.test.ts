// ShardedDependents against a fake API: a shard's objects are watched (by the shard label) only during its term,
// a shard taken later watches the kinds already ensured, and a lookup answers from whichever shard holds the object.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { configMap, configMaps, FakeKubeApi } from '../../test/fakes/kube-api.js';
import { until } from '../../test/support/until.js';
import { silentLogger } from '../core/logger.js';
import type { KubeObject } from '../kube/types.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import type { ShardTermsOf } from '../leader/shards.js';
import { ShardedDependents } from './sharded.js';
import { DependentWatcher } from './watcher.js';

const owned = (name: string, shard: string): KubeObject =>
  configMap(name, '1', {
    metadata: {
      name,
      namespace: 'default',
      resourceVersion: '1',
      labels: { 'helm.sdk.operatorframework.io/chart': 'nginx', [SHARD_LABEL]: shard },
      ownerReferences: [{ apiVersion: 'demo.example.com/v1', kind: 'Shop', name, uid: `u-${name}`, controller: true }],
    },
  });

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function setup() {
  const kube = new FakeKubeApi({ objects: [owned('a', '0'), owned('b', '1')] });
  const run = new AbortController();
  stops.push(run);
  const terms = new Map<number, AbortController>();
  let opener: ((shard: number, signal: AbortSignal) => void) | undefined;
  const of: ShardTermsOf = (open) => {
    opener = open;
    return { start: () => undefined };
  };
  const dependents = new ShardedDependents({
    terms: of,
    signal: run.signal,
    watcher: (shard, signal) =>
      new DependentWatcher({
        kube,
        namespaces: ['default'],
        charts: ['nginx'],
        trigger: () => undefined,
        clock: new FakeClock(),
        logger: silentLogger,
        signal,
        shard,
      }),
  });
  const take = (shard: number) => {
    const term = new AbortController();
    terms.set(shard, term);
    opener?.(shard, term.signal);
  };
  const give = (shard: number) => terms.get(shard)?.abort();
  return { kube, dependents, take, give };
}

describe('ShardedDependents', () => {
  it('watches only the objects of the shards held, by the shard label', async () => {
    const { kube, dependents, take } = setup();
    dependents.ensure([configMaps]);
    expect(dependents.get(configMaps, 'default', 'a')).toBeUndefined(); // no shard held: not watched here
    take(1); // a shard taken after ensure watches the kinds ensured before
    await until('the shard watch', () => kube.watches.length === 1, { timeoutMs: 5000 });
    expect(kube.watches[0]?.options.labelSelector).toBe(
      `helm.sdk.operatorframework.io/chart in (nginx),${SHARD_LABEL}=1`,
    );
    await dependents.waitForSync([configMaps], 5000, new AbortController().signal);
    expect(dependents.get(configMaps, 'default', 'b')?.metadata.name).toBe('b');
    expect(dependents.get(configMaps, 'default', 'a')).toBeNull(); // synced, and shard 0's object is not in it
    expect(dependents.cachedObjects()).toBe(1);
  });

  it("drops a shard's watcher and its objects when the shard is given back", async () => {
    const { dependents, take, give } = setup();
    dependents.ensure([configMaps]);
    take(0);
    take(1);
    expect(dependents.shards()).toEqual([0, 1]);
    await dependents.waitForSync([configMaps], 5000, new AbortController().signal);
    expect(dependents.cachedObjects()).toBe(2);
    give(0);
    expect(dependents.shards()).toEqual([1]);
    expect(dependents.cachedObjects()).toBe(1);
    expect(dependents.get(configMaps, 'default', 'a')).toBeNull();
  });
});
