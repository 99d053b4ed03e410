// Requests the kube-apiserver served over a window, from its own counters (/metrics: apiserver_request_total by
// verb and resource, apiserver_watch_events_total by resource): "requests per reconcile" for a phase and its floor.
// Called by bench/phases/delete.ts and floors.ts; reads /metrics with kubectl only, never writes.

export type Scrape = () => Promise<string>;

/** Counter values by series: `verb resource` for requests, `watch resource` for watch events. */
type Counts = Map<string, number>;

const REQUEST = /^apiserver_request_total\{([^}]*)\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/;
const WATCH_EVENTS = /^apiserver_watch_events_total\{([^}]*)\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/;
const label = (labels: string, name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1] ?? '';

/** Parses the two counters, summed over the labels left out (code, scope, component…). */
export function parseCounts(text: string): Counts {
  const out: Counts = new Map();
  const add = (k: string, v: number) => out.set(k, (out.get(k) ?? 0) + v);
  for (const line of text.split('\n')) {
    const r = REQUEST.exec(line);
    if (r?.[1] !== undefined) {
      const verb = label(r[1], 'verb');
      // A WATCH is one long request: counted where it starts, so it says nothing of the work it streams.
      if (verb !== 'WATCH' && verb !== 'CONNECT') add(`${verb} ${label(r[1], 'resource')}`, Number(r[2]));
      continue;
    }
    const w = WATCH_EVENTS.exec(line);
    // Labelled by resource since Kubernetes 1.33, by kind before.
    if (w?.[1] !== undefined) add(`watch ${label(w[1], 'resource') || label(w[1], 'kind')}`, Number(w[2]));
  }
  return out;
}

export interface RequestDiff {
  /** Non-watch requests over the window. */
  readonly requests: number;
  /** Watch events sent over the window (each to one watcher). */
  readonly watchEvents: number;
  /** Every series that moved, largest first: `GET secrets 200`… */
  readonly lines: readonly string[];
}

export function diffCounts(before: Counts, after: Counts): RequestDiff {
  const moved = [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
    .filter(([, d]) => d > 0)
    .sort((a, b) => b[1] - a[1]);
  const sum = (watch: boolean) =>
    moved.filter(([k]) => k.startsWith('watch ') === watch).reduce((s, [, d]) => s + d, 0);
  return { requests: sum(false), watchEvents: sum(true), lines: moved.map(([k, d]) => `${k} ${d}`) };
}

/** Starts a window: `end()` scrapes again and returns what moved. A failed scrape gives NaN figures, not a failure. */
export async function requestWindow(scrape: Scrape): Promise<{ end(): Promise<RequestDiff> }> {
  const read = () => scrape().then(parseCounts, () => undefined);
  const before = await read();
  return {
    async end() {
      const after = await read();
      if (!before || !after) return { requests: Number.NaN, watchEvents: Number.NaN, lines: [] };
      return diffCounts(before, after);
    },
  };
}
