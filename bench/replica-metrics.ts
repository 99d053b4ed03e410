// One operator replica's figures from its own /metrics: the watch events its informers received and the objects they
// hold, by kind (the informer census, src/cache/census.ts), and V8's heap used. Called by bench/scale.ts at the edges
// of its windows; only reads (one GET of /metrics), never writes.

/** Counts by kind (a watched kind: Nginx, Secret, Deployment, …). */
export type ByKind = ReadonlyMap<string, number>;

export interface ReplicaMetrics {
  /** Watch events received since the process started, by kind: ADDED, MODIFIED and DELETED (not BOOKMARK, ERROR). */
  readonly events: ByKind;
  /** Objects in the running informers' stores now, by kind. */
  readonly objects: ByKind;
  /** V8's heap used (nodejs_heap_size_used_bytes), MiB. */
  readonly heapUsedMiB: number;
}

/** Object changes only: a bookmark carries no object and an error ends a watch. */
const COUNTED = new Set(['ADDED', 'MODIFIED', 'DELETED']);
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/;
const labelOf = (labels: string, name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1] ?? '';

/** Reads the census' two series and the heap from Prometheus' text format. */
export function parseReplicaMetrics(text: string): ReplicaMetrics {
  const events = new Map<string, number>();
  const objects = new Map<string, number>();
  let heapUsedMiB = Number.NaN;
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const [, name, labels = '', raw] = m;
    const value = Number(raw);
    if (name === 'helm_operator_informer_watch_events_total') {
      if (!COUNTED.has(labelOf(labels, 'type'))) continue;
      const kind = labelOf(labels, 'kind');
      events.set(kind, (events.get(kind) ?? 0) + value);
    } else if (name === 'helm_operator_informer_objects') {
      const kind = labelOf(labels, 'kind');
      objects.set(kind, (objects.get(kind) ?? 0) + value);
    } else if (name === 'nodejs_heap_size_used_bytes') heapUsedMiB = value / 2 ** 20;
  }
  return { events, objects, heapUsedMiB };
}

/** One GET of the replica's /metrics (`address`: host:port, as its 'Serving metrics' log line gives it). */
export async function scrapeReplica(address: string): Promise<ReplicaMetrics> {
  const res = await fetch(`http://${address}/metrics`);
  if (!res.ok) throw new Error(`GET http://${address}/metrics: ${res.status}`);
  return parseReplicaMetrics(await res.text());
}

/** The sum over kinds. */
export const total = (m: ByKind): number => [...m.values()].reduce((a, n) => a + n, 0);

/** What each kind's count grew by from `before` to `after` (kinds of either). */
export function growth(before: ByKind, after: ByKind): ByKind {
  const kinds = new Set([...before.keys(), ...after.keys()]);
  return new Map([...kinds].map((k) => [k, (after.get(k) ?? 0) - (before.get(k) ?? 0)]));
}
