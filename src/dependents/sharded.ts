// The dependent watches of a sharded replica: one DependentWatcher per shard held, each selecting the objects the
// post-renderer labelled with that shard, opened when the shard is taken and stopped (its caches dropped) when it is
// given back. Seen by the reconcilers as one watcher. Built by manager/process.ts when sharding is on; never watches
// an object of a shard this replica does not hold.

import type { ApiResource, KubeObject } from '../kube/types.js';
import { labelledShard } from '../leader/shard-label.js';
import type { ShardTermsOf } from '../leader/shards.js';
import type { CacheAnswer, Dependents, DependentWatcher } from './watcher.js';

export interface ShardedDependentsOptions {
  readonly terms: ShardTermsOf;
  /** A watcher of shard `shard`'s objects whose informers run until `signal` aborts. */
  readonly watcher: (shard: number, signal: AbortSignal) => DependentWatcher;
  /** The operator's lifetime. */
  readonly signal: AbortSignal;
}

export class ShardedDependents implements Dependents {
  readonly #o: ShardedDependentsOptions;
  readonly #byShard = new Map<number, DependentWatcher>();
  /** The resources ensured so far: a shard taken later watches them too. */
  readonly #resources = new Map<string, ApiResource>();

  constructor(options: ShardedDependentsOptions) {
    this.#o = options;
    options.terms((shard, term) => this.#open(shard, term)).start(options.signal);
  }

  /** The shards whose watcher runs, ascending. */
  shards(): number[] {
    return [...this.#byShard.keys()].sort((a, b) => a - b);
  }

  ensure(resources: readonly ApiResource[]): void {
    for (const res of resources) this.#resources.set(`${res.group}/${res.version}/${res.plural}`, res);
    for (const watcher of this.#byShard.values()) watcher.ensure(resources);
  }

  async waitForSync(resources: readonly ApiResource[], timeoutMs: number, signal: AbortSignal): Promise<void> {
    await Promise.all([...this.#byShard.values()].map((w) => w.waitForSync(resources, timeoutMs, signal)));
  }

  /** The object from whichever shard holds it; null only when every shard's cache has synced without it. */
  get(res: ApiResource, namespace: string, name: string): CacheAnswer {
    if (this.#byShard.size === 0) return undefined;
    let answer: CacheAnswer = null;
    for (const watcher of this.#byShard.values()) {
      const found = watcher.get(res, namespace, name);
      if (found) return found;
      if (found === undefined) answer = undefined;
    }
    return answer;
  }

  /** To the watcher of the object's shard (its label), or to every one when it names none held. */
  expectEcho(res: ApiResource, obj: KubeObject): void {
    const shard = labelledShard(obj);
    const own = shard === undefined ? undefined : this.#byShard.get(shard);
    for (const watcher of own ? [own] : this.#byShard.values()) watcher.expectEcho(res, obj);
  }

  cachedObjects(): number {
    let n = 0;
    for (const watcher of this.#byShard.values()) n += watcher.cachedObjects();
    return n;
  }

  #open(shard: number, term: AbortSignal): void {
    const watcher = this.#o.watcher(shard, term);
    watcher.ensure([...this.#resources.values()]);
    this.#byShard.set(shard, watcher);
    term.addEventListener(
      'abort',
      () => {
        if (this.#byShard.get(shard) === watcher) this.#byShard.delete(shard);
      },
      { once: true },
    );
  }
}
