// The shard gate of one controller: a CR key is admitted only while this replica holds the shard its label names
// (read from the informers' cache, leader/shard-label.ts), and each reconcile runs under its shard's term (aborted
// when the shard is lost). Built by watch.ts per controller when sharding is on.
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
  /** True while the key's shard is held (and the key is not held back). */
  admit(key: string): boolean;
  /** Runs `fn` under the key's shard term; resolves `skipped` without calling it when the shard is not held. */
  run<T>(key: string, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>, skipped: T): Promise<T>;
  /** Admits no reconcile of `key` until `settle(key)`; resolves once none runs (rejects when `signal` aborts). */
  hold(key: string, signal: AbortSignal): Promise<void>;
  settle(key: string): void;
}

export function shardGate(o: ShardGateOptions): ShardGate {
  const shardOfKey = (key: string) => {
    const obj = o.cached(key);
    return obj === undefined ? undefined : shardOfCr(obj, o.shards.count);
  };
  /** Keys held back (being moved to another shard). */
  const held = new Set<string>();
  /** Keys being reconciled → who waits for them to be idle. */
  const running = new Map<string, (() => void)[]>();
  return {
    admit(key) {
      const shard = shardOfKey(key);
      return shard !== undefined && !held.has(key) && o.shards.holds(shard);
    },
    async run(key, signal, fn, skipped) {
      const shard = shardOfKey(key);
      const ticket = shard === undefined || held.has(key) ? undefined : o.shards.enter(shard);
      if (ticket === undefined) return skipped;
      running.set(key, running.get(key) ?? []);
      try {
        return await fn(AbortSignal.any([signal, ticket.signal]));
      } finally {
        for (const wake of running.get(key) ?? []) wake();
        running.delete(key);
        ticket.exit();
      }
    },
    hold(key, signal) {
      held.add(key);
      const waiters = running.get(key);
      if (waiters === undefined) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        waiters.push(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    },
    settle(key) {
      held.delete(key);
    },
  };
}
