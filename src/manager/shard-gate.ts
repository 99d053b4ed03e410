// The shard gate of one controller: a CR key is admitted only while this replica holds the shard its uid (read from
// the informers' cache) hashes to, each reconcile runs under its shard's term (aborted when the shard is lost), and
// taking a shard enqueues its CRs from the cache. Built by watch.ts per controller when sharding is on.
// Never reconciles a key whose CR is not cached (its reconcile would only find it gone) and never calls the API.
import { keyOf } from '../cache/store.js';
import type { KubeObject } from '../kube/types.js';
import { shardOf } from '../leader/shard-hash.js';
import type { ShardSet } from '../leader/shards.js';

/** What the gate needs of the shard set (leader/shards.ts). */
export type ShardOwnership = Pick<ShardSet, 'count' | 'holds' | 'enter' | 'onAcquired'>;

export interface ShardGateOptions {
  readonly shards: ShardOwnership;
  /** The cached CR of a "namespace/name" key. */
  readonly cached: (key: string) => KubeObject | undefined;
}

export interface ShardGate {
  /** True while the key's shard is held. */
  admit(key: string): boolean;
  /** Runs `fn` under the key's shard term; resolves `skipped` without calling it when the shard is not held. */
  run<T>(key: string, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>, skipped: T): Promise<T>;
  /** The keys of `objects` that belong to `shard`. */
  keysOf(shard: number, objects: Iterable<KubeObject>): string[];
}

export function shardGate(o: ShardGateOptions): ShardGate {
  const shardOfObject = (obj: KubeObject | undefined): number | undefined => {
    const uid = obj?.metadata.uid;
    return typeof uid === 'string' && uid !== '' ? shardOf(uid, o.shards.count) : undefined;
  };
  const shardOfKey = (key: string) => shardOfObject(o.cached(key));
  return {
    admit(key) {
      const shard = shardOfKey(key);
      return shard !== undefined && o.shards.holds(shard);
    },
    async run(key, signal, fn, skipped) {
      const shard = shardOfKey(key);
      const ticket = shard === undefined ? undefined : o.shards.enter(shard);
      if (ticket === undefined) return skipped;
      try {
        return await fn(AbortSignal.any([signal, ticket.signal]));
      } finally {
        ticket.exit();
      }
    },
    keysOf(shard, objects) {
      const keys: string[] = [];
      for (const obj of objects) if (shardOfObject(obj) === shard) keys.push(keyOf(obj));
      return keys;
    },
  };
}
