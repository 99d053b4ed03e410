// The labeller of one namespace scope when sharding is on: while this replica holds shard 0, one narrow source (a
// LIST every half second, cache/poller.ts: a watch would cost this replica two events for every new CR) finds the
// CRs without a shard of the current count (no label, a value that is no shard, or a retired shard) and writes the
// shard label (with our finalizer, when missing), a merge patch that carries the CR's resourceVersion (a racing write
// fails and is seen again).
// Built by shard-crs.ts as a controller source; never reconciles, never moves a CR between shards that both exist.
import type { Informer } from '../cache/informer.js';
import type { InformerHandler } from '../cache/informer-contract.js';
import { keyOf, splitKey } from '../cache/store.js';
import type { Source } from '../controller/controller.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { withFinalizer } from '../finalizers/finalizers.js';
import { ConflictError, NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { labelledShard, SHARD_LABEL, shardPatch, shardToLabel, unshardedSelector } from '../leader/shard-label.js';
import type { ShardOwnership } from './shard-gate.js';
import { shardTerms } from './shard-terms.js';

/** Labels written at once; each is one small PATCH. */
const CONCURRENCY = 4;
/** A failed write is tried again after this long; a retired shard's CRs are looked at again this often. */
const RETRY_MS = 1_000;

export interface ShardLabellerOptions {
  readonly kube: Pick<KubeClient, 'patch'>;
  readonly resource: ApiResource;
  readonly shards: Pick<ShardOwnership, 'count' | 'held' | 'onAcquired' | 'onReleased' | 'holdRetired'>;
  /** The watch's own label selector, if any. */
  readonly labelSelector?: string | undefined;
  /** A new source of this scope's CRs that match `labelSelector`. */
  readonly source: (labelSelector: string) => LabellerSource;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What the labeller reads the CRs without a shard from: a ListPoller (an Informer would do too). */
export type LabellerSource = Pick<Informer, 'get' | 'list' | 'start'> & {
  addEventHandler(handler: InformerHandler): unknown;
};

export class ShardLabeller implements Source {
  readonly #o: ShardLabellerOptions;
  /** The narrow source while shard 0 is held. */
  #informer: LabellerSource | undefined;
  readonly #pending = new Set<string>();
  readonly #draining = new Set<number>();
  #workers = 0;
  #term: AbortSignal | undefined;
  readonly #running = new Set<Promise<void>>();

  constructor(options: ShardLabellerOptions) {
    this.#o = options;
  }

  /** Always: the labeller holds no CR a reconcile reads. */
  hasSynced(): boolean {
    return true;
  }

  waitForSync(_signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  /** Labels while shard 0 is held, until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    const terms = shardTerms({ shards: this.#o.shards, only: (s) => s === 0, open: (_s, term) => this.#open(term) });
    terms.start(signal);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.allSettled([...this.#running]);
  }

  #open(term: AbortSignal): void {
    const { shards, labelSelector } = this.#o;
    const informer = this.#o.source(unshardedSelector(labelSelector, shards.count));
    this.#informer = informer;
    this.#term = term;
    const want = (obj: KubeObject) => this.#want(keyOf(obj));
    informer.addEventHandler({ onAdd: want, onUpdate: (_old, obj) => want(obj) });
    this.#track(informer.start(term));
    this.#o.logger.info({ selector: unshardedSelector(labelSelector, shards.count) }, 'Labelling CRs without a shard');
    term.addEventListener(
      'abort',
      () => {
        if (this.#informer === informer) this.#informer = undefined;
        this.#pending.clear();
        this.#draining.clear();
      },
      { once: true },
    );
  }

  #want(key: string): void {
    this.#pending.add(key);
    while (this.#workers < CONCURRENCY && this.#pending.size > this.#workers) {
      this.#workers++;
      this.#track(this.#work().finally(() => this.#workers--));
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = this.#pending.values().next().value;
      const term = this.#term;
      if (key === undefined || term === undefined || term.aborted) return;
      this.#pending.delete(key);
      const obj = this.#informer?.get(...this.#storeKey(key));
      if (obj === undefined) continue;
      const labelled = labelledShard(obj);
      if (labelled !== undefined && labelled >= this.#o.shards.count) this.#drain(labelled, term);
      else if (!(await this.#label(obj, term))) this.#retryLater(key, term);
    }
  }

  /** Store keys: a cluster-scoped CR is stored under namespace ''. */
  #storeKey(key: string): [string, string] {
    const [namespace, name] = splitKey(key);
    return [this.#o.resource.namespaced ? namespace : '', name];
  }

  /**
   * Writes the CR's shard; false when it should be tried again (a conflict or a gone CR needs no retry). A CR that
   * lacks our finalizer gets it in the same write: its first reconcile would add it anyway, and one write per new CR
   * instead of two spares the API server and etcd a write and every watcher an event.
   */
  async #label(obj: KubeObject, signal: AbortSignal): Promise<boolean> {
    const shard = shardToLabel(obj, this.#o.shards.count);
    if (shard === undefined) return true;
    const { namespace = '', name = '', resourceVersion, deletionTimestamp, finalizers } = obj.metadata;
    const added = deletionTimestamp ? undefined : withFinalizer(finalizers);
    const patch = shardPatch(shard, this.#o.shards.count, resourceVersion, added);
    try {
      await this.#o.kube.patch(this.#o.resource, namespace, name, patch, 'merge', { signal });
      this.#o.logger.debug({ key: keyOf(obj), shard, was: obj.metadata.labels?.[SHARD_LABEL] }, 'Labelled shard');
      return true;
    } catch (err) {
      if (err instanceof ConflictError || err instanceof NotFoundError || signal.aborted) return true;
      this.#o.logger.warn({ key: keyOf(obj), shard, err: errFields(err) }, 'Could not label the shard of a CR');
      return false;
    }
  }

  #retryLater(key: string, term: AbortSignal): void {
    this.#track(
      this.#o.clock.sleep(RETRY_MS, term).then(
        () => this.#want(key),
        () => undefined,
      ),
    );
  }

  /**
   * Moves the CRs of a retired shard (one of a larger count than now) into the current shards, while holding that
   * shard's Lease: a replica that still runs with the larger count cannot reconcile them meanwhile.
   */
  #drain(retired: number, term: AbortSignal): void {
    if (this.#draining.has(retired)) return;
    this.#draining.add(retired);
    const { shards, logger } = this.#o;
    const moveAll = async (held: AbortSignal) => {
      for (;;) {
        const left = (this.#informer?.list() ?? []).filter((o) => labelledShard(o) === retired);
        if (left.length === 0 || held.aborted) return;
        logger.info({ shard: retired, crs: left.length }, 'Moving the CRs of a retired shard');
        for (const obj of left) await this.#label(obj, held);
        await this.#o.clock.sleep(RETRY_MS, held).catch(() => undefined);
      }
    };
    const drained = shards
      .holdRetired(retired, term, moveAll)
      .catch(async (err: unknown) => {
        if (term.aborted) return;
        logger.warn({ shard: retired, err: errFields(err) }, 'Could not move a retired shard');
        await this.#o.clock.sleep(RETRY_MS, term).catch(() => undefined);
      })
      .finally(() => {
        if (this.#term !== term) return;
        this.#draining.delete(retired);
        // CRs of the shard that came meanwhile, or a failed attempt: look again.
        for (const obj of this.#informer?.list() ?? []) if (labelledShard(obj) === retired) this.#want(keyOf(obj));
      });
    this.#track(drained);
  }

  #track(p: Promise<void>): void {
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p));
  }
}
