// The CR informers of one namespace scope when sharding is on: one informer per shard held, selecting the CRs
// labelled with that shard, started when the shard is taken and stopped (its objects deleted to the handlers, its
// store dropped) once it is given back. Built by watch.ts in place of the one informer of an unsharded run;
// never labels a CR (shard-labeller.ts does) and never holds a CR of a shard this replica does not hold.
import type { Informer } from '../cache/informer.js';
import type { InformerHandler } from '../cache/informer-contract.js';
import type { CachedInformer } from '../cache/informer-set.js';
import type { Source } from '../controller/controller.js';
import type { KubeObject } from '../kube/types.js';
import { shardSelector } from '../leader/shard-label.js';
import type { ShardOwnership } from './shard-gate.js';
import { type ShardTerms, shardTerms } from './shard-terms.js';

export interface ShardInformersOptions {
  readonly shards: Pick<ShardOwnership, 'held' | 'onAcquired' | 'onReleased'>;
  /** The watch's own label selector, if any; each shard's adds its shard label to it. */
  readonly labelSelector?: string | undefined;
  /** A new informer of this scope's CRs that match `labelSelector`. */
  readonly informer: (labelSelector: string) => Informer;
}

export class ShardInformers implements CachedInformer, Source {
  readonly #o: ShardInformersOptions;
  readonly #handlers = new Set<InformerHandler>();
  readonly #byShard = new Map<number, Informer>();
  readonly #running = new Set<Promise<void>>();
  readonly #terms: ShardTerms;
  #run: AbortSignal | undefined;

  constructor(options: ShardInformersOptions) {
    this.#o = options;
    this.#terms = shardTerms({ shards: options.shards, open: (shard, signal) => this.#open(shard, signal) });
  }

  /** Adds a handler to every shard's informer, present and future. Returns a function that removes it. */
  addEventHandler(handler: InformerHandler): () => void {
    this.#handlers.add(handler);
    const removers = [...this.#byShard.values()].map((i) => i.addEventHandler(handler));
    return () => {
      this.#handlers.delete(handler);
      for (const remove of removers) remove();
    };
  }

  /** The shards whose informer runs, ascending. */
  shards(): number[] {
    return [...this.#byShard.keys()].sort((a, b) => a - b);
  }

  get(namespace: string, name: string): KubeObject | undefined {
    for (const informer of this.#byShard.values()) {
      const obj = informer.get(namespace, name);
      if (obj !== undefined) return obj;
    }
    return undefined;
  }

  list(): KubeObject[] {
    return [...this.#byShard.values()].flatMap((i) => i.list());
  }

  /** True when the informer of every shard held has listed (none held: true). */
  hasSynced(): boolean {
    return [...this.#byShard.values()].every((i) => i.hasSynced());
  }

  /** At once: a shard's informer may come and go at any time, and its CRs are enqueued as it lists them. */
  waitForSync(_signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  /** Runs the informers of the shards held until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    this.#run = signal;
    this.#terms.start(signal);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.allSettled([...this.#running]);
  }

  #open(shard: number, signal: AbortSignal): void {
    const informer = this.#o.informer(shardSelector(this.#o.labelSelector, shard));
    for (const handler of this.#handlers) informer.addEventHandler(handler);
    this.#byShard.set(shard, informer);
    const run = informer.start(signal).finally(() => this.#running.delete(run));
    this.#running.add(run);
    signal.addEventListener('abort', () => this.#close(shard, informer), { once: true });
  }

  /** Drops the shard's informer; its CRs are deleted to the handlers (their references and metrics go too). */
  #close(shard: number, informer: Informer): void {
    if (this.#byShard.get(shard) === informer) this.#byShard.delete(shard);
    if (this.#run?.aborted !== false) return; // shutting down: nothing more is reconciled
    for (const obj of informer.list()) {
      if (this.get(obj.metadata.namespace ?? '', obj.metadata.name ?? '') !== undefined) continue;
      for (const handler of this.#handlers) {
        try {
          handler.onDelete?.(obj);
        } catch {
          // A handler's failure must not keep the other handlers from forgetting the CR.
        }
      }
    }
  }
}
