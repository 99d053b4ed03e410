// The shard gate of one controller: a CR key is admitted only while this replica holds the shard its label names
// (read from the informers' cache, leader/shard-label.ts), and each reconcile runs under its shard's term (aborted
// when the shard is lost). Built by operator.ts per controller when sharding is on.
// Never reconciles a key whose CR is not cached (its reconcile would only find it gone) and never calls the API.
import type { KubeObject } from '../kube/types.js';
import { shardOfCr } from '../leader/shard-label.js';
import type { ShardSet } from '../leader/shards.js';

/** What the gate, the shard informers and the labeller need of the shard set (leader/shards.ts). */
export type ShardOwnership = Pick<
  ShardSet,
  'count' | 'holds' | 'held' | 'enter' | 'onAcquired' | 'onReleased' | 'holdRetired'
>;

export interface ShardGateOptions {
  readonly shards: Pick<ShardOwnership, 'count' | 'holds' | 'enter'>;
  /** The cached CR of a "namespace/name" key. */
  readonly cached: (key: string) => KubeObject | undefined;
}

export interface ShardGate {
  /** True while the key's shard is held. */
  admit(key: string): boolean;
  /** Runs `fn` under the key's shard term; resolves `skipped` without calling it when the shard is not held. */
  run<T>(key: string, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>, skipped: T): Promise<T>;
}

export function shardGate(o: ShardGateOptions): ShardGate {
  const shardOfKey = (key: string) => {
    const obj = o.cached(key);
    return obj === undefined ? undefined : shardOfCr(obj, o.shards.count);
  };
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
  };
}
