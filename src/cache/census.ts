// What this process's informers hold and receive, by kind: the objects in each running informer's store and the watch
// events each received. Informers report to it (cache/informer.ts, the process census by default); the metrics read
// it at each scrape (observability/metrics.ts). Never holds an object, only counts; never throws.

/** One informer's store as the census sees it: its kind and its current size. */
export interface CensusEntry {
  readonly kind: string;
  readonly size: () => number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export class InformerCensus {
  readonly #stores = new Set<CensusEntry>();
  readonly #events = new Map<string, Map<WatchEventType, number>>();
  /** Every kind an informer ever held, so a kind whose informers all stopped shows 0 rather than vanishing. */
  readonly #kinds = new Set<string>();

  /** Counts `entry`'s store until the returned function is called (when its informer stops). */
  hold(entry: CensusEntry): () => void {
    this.#stores.add(entry);
    this.#kinds.add(entry.kind);
    return () => {
      this.#stores.delete(entry);
    };
  }

  /** Counts one watch event of `kind`. */
  watchEvent(kind: string, type: WatchEventType): void {
    let byType = this.#events.get(kind);
    if (byType === undefined) {
      byType = new Map();
      this.#events.set(kind, byType);
    }
    byType.set(type, (byType.get(type) ?? 0) + 1);
  }

  /** Objects held now by the running informers, by kind (a kind whose informers all stopped shows 0). */
  objects(): ReadonlyMap<string, number> {
    const out = new Map<string, number>([...this.#kinds].map((kind) => [kind, 0]));
    for (const { kind, size } of this.#stores) out.set(kind, (out.get(kind) ?? 0) + size());
    return out;
  }

  /** Watch events received since the process started, by kind and type. */
  events(): ReadonlyArray<{ readonly kind: string; readonly type: WatchEventType; readonly count: number }> {
    return [...this.#events].flatMap(([kind, byType]) => [...byType].map(([type, count]) => ({ kind, type, count })));
  }
}

/** The census of this process: every informer reports here unless given another (tests give their own). */
export const processCensus = new InformerCensus();
