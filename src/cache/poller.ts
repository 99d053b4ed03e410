// A store of one label-selected resource, kept by LISTing it every period instead of watching it: for a selector that
// objects only pass through (the shard labeller's CRs without a shard), where a watch would cost two events for each
// (added, then gone once labelled) and an empty LIST costs one small request. Calls onAdd and onUpdate for what is
// new or changed since the last LIST. Used by manager/shard-crs.ts; never throws from start(), never hot-loops.
import { type Clock, realClock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import type { InformerHandler } from './informer-contract.js';
import { keyOf, objectKey } from './store.js';

export interface ListPollerOptions {
  readonly client: Pick<KubeClient, 'list'>;
  readonly resource: ApiResource;
  /** '' for all namespaces (or a cluster-scoped resource). */
  readonly namespace: string;
  readonly labelSelector: string;
  /** Time from the end of one LIST to the start of the next. */
  readonly periodMs: number;
  readonly clock?: Clock | undefined;
  readonly logger: Logger;
}

export class ListPoller {
  readonly #o: ListPollerOptions;
  readonly #clock: Clock;
  readonly #handlers = new Set<InformerHandler>();
  #objects = new Map<string, KubeObject>();
  #failing = false;

  constructor(options: ListPollerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? realClock;
  }

  addEventHandler(handler: InformerHandler): () => void {
    this.#handlers.add(handler);
    for (const obj of this.#objects.values()) handler.onAdd?.(obj);
    return () => this.#handlers.delete(handler);
  }

  get(namespace: string, name: string): KubeObject | undefined {
    return this.#objects.get(objectKey(namespace, name));
  }

  /** What the last LIST returned. */
  list(): KubeObject[] {
    return [...this.#objects.values()];
  }

  /** LISTs until `signal` aborts, then forgets what it held. */
  async start(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.#poll(signal);
      await this.#clock.sleep(this.#o.periodMs, signal).catch(() => undefined);
    }
    this.#objects = new Map();
  }

  async #poll(signal: AbortSignal): Promise<void> {
    const { client, resource, namespace, labelSelector, logger } = this.#o;
    let items: KubeObject[];
    try {
      items = (await client.list(resource, { namespace, labelSelector, metadataOnly: true, signal })).items;
    } catch (err) {
      if (signal.aborted) return;
      if (!this.#failing) logger.warn({ labelSelector, err: errFields(err) }, 'Could not list; trying again');
      this.#failing = true;
      return;
    }
    this.#failing = false;
    const before = this.#objects;
    const now = new Map(items.map((obj) => [keyOf(obj), obj]));
    this.#objects = now;
    for (const [key, obj] of now) {
      const old = before.get(key);
      if (old === undefined) for (const h of this.#handlers) h.onAdd?.(obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion)
        for (const h of this.#handlers) h.onUpdate?.(old, obj);
    }
    for (const [key, obj] of before) if (!now.has(key)) for (const h of this.#handlers) h.onDelete?.(obj);
  }
}
