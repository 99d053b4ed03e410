// The mover of one namespace scope when sharding is on: a CR of a shard this replica holds that the operator labelled
// for a smaller shard count (its shard-count annotation) moves to its uid hash modulo the count, once: the gate holds
// the key back, waits for its running reconcile, then a merge patch with the resourceVersion relabels it; the key
// stays held back until the shard's informer lets it go. Built by shard-crs.ts; never moves a label set by hand.
import { keyOf, splitKey } from '../cache/store.js';
import type { Source } from '../controller/controller.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { rebalanceTarget, SHARD_LABEL, shardOfCr, shardPatch } from '../leader/shard-label.js';
import type { ShardGate, ShardOwnership } from './shard-gate.js';
import type { ShardInformers } from './shard-informers.js';

/** Moves at once; each is one small PATCH after the CR's running reconcile. */
const CONCURRENCY = 4;
/** A failed move is tried again after this long (the key stays held back meanwhile). */
const RETRY_MS = 1_000;

export interface ShardMoverOptions {
  readonly kube: Pick<KubeClient, 'patch'>;
  readonly resource: ApiResource;
  readonly shards: Pick<ShardOwnership, 'count' | 'enter'>;
  readonly gate: Pick<ShardGate, 'hold' | 'settle'>;
  readonly informers: Pick<ShardInformers, 'get' | 'addEventHandler'>;
  /** The controller's enqueue: a key let go is looked at again. */
  readonly enqueue: (key: string) => void;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class ShardMover implements Source {
  readonly #o: ShardMoverOptions;
  readonly #pending = new Set<string>();
  /** Keys held back by a move, until their shard's informer lets them go. */
  readonly #moving = new Set<string>();
  readonly #running = new Set<Promise<void>>();
  #workers = 0;
  #signal: AbortSignal | undefined;

  constructor(options: ShardMoverOptions) {
    this.#o = options;
  }

  hasSynced(): boolean {
    return true;
  }

  waitForSync(_signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  async start(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const seen = (obj: KubeObject) => {
      if (rebalanceTarget(obj, this.#o.shards.count) !== undefined) this.#want(keyOf(obj));
    };
    const remove = this.#o.informers.addEventHandler({
      onAdd: seen,
      onUpdate: (_old, obj) => seen(obj),
      onDelete: (obj) => this.#letGo(keyOf(obj)),
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    remove();
    await Promise.allSettled([...this.#running]);
  }

  /** The CR left this shard's cache (moved, deleted, or the shard given back): reconciles of it may run again. */
  #letGo(key: string): void {
    if (!this.#moving.delete(key)) return;
    this.#o.gate.settle(key);
    this.#o.enqueue(key); // it may have come into another shard this replica holds
  }

  /** Queues a move of `key`; `again`: a retry of a move whose key is still held back. */
  #want(key: string, again = false): void {
    if (this.#moving.has(key) && !again) return;
    this.#pending.add(key);
    while (this.#workers < CONCURRENCY && this.#pending.size > this.#workers) {
      this.#workers++;
      this.#track(this.#work().finally(() => this.#workers--));
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = this.#pending.values().next().value;
      const signal = this.#signal;
      if (key === undefined || signal === undefined || signal.aborted) return;
      this.#pending.delete(key);
      await this.#move(key, signal).catch((err: unknown) => {
        if (!signal.aborted) this.#o.logger.warn({ key, err: errFields(err) }, 'Could not move a CR to its shard');
      });
    }
  }

  async #move(key: string, signal: AbortSignal): Promise<void> {
    const [namespace, name] = splitKey(key);
    if (this.#target(key) === undefined) return this.#letGo(key);
    this.#moving.add(key);
    await this.#o.gate.hold(key, signal); // no reconcile of it runs from here on
    const obj = this.#o.informers.get(namespace, name);
    const target = obj && rebalanceTarget(obj, this.#o.shards.count);
    // The move counts as work of its shard: a hand-back waits for it, a lost shard aborts it.
    const from = obj && shardOfCr(obj, this.#o.shards.count);
    if (obj === undefined || target === undefined || from === undefined) return this.#letGo(key);
    const ticket = this.#o.shards.enter(from);
    if (ticket === undefined) return this.#letGo(key);
    try {
      const patch = shardPatch(target, this.#o.shards.count, obj.metadata.resourceVersion);
      const options = { signal: AbortSignal.any([signal, ticket.signal]) };
      await this.#o.kube.patch(this.#o.resource, obj.metadata.namespace ?? '', name, patch, 'merge', options);
      const was = obj.metadata.labels?.[SHARD_LABEL];
      this.#o.logger.info({ key, shard: target, was }, 'Moved CR to its shard for the new shard count');
    } catch (err) {
      if (err instanceof NotFoundError || ticket.signal.aborted) return this.#letGo(key);
      if (signal.aborted) return;
      // A conflict (the CR changed) or a failure: still held back, tried again with what the cache holds then.
      this.#o.logger.debug({ key, err: errFields(err) }, 'Moving a CR failed; trying again');
      this.#track(
        this.#o.clock.sleep(RETRY_MS, signal).then(
          () => this.#want(key, true),
          () => undefined,
        ),
      );
    } finally {
      ticket.exit();
    }
  }

  #target(key: string): number | undefined {
    const obj = this.#o.informers.get(...splitKey(key));
    return obj && rebalanceTarget(obj, this.#o.shards.count);
  }

  #track(p: Promise<void>): void {
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p));
  }
}
