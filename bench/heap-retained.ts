// Retained size by holder in a V8 heap snapshot: the dominator tree of the snapshot's graph (weak edges ignored),
// then each object's self size charged to its nearest dominator that is one of the operator's holders (an Informer,
// labelled by the kind it watches, a memo, the release-record cache, …); what no holder dominates is split by V8
// node type. Used by bench/heap-kinds.ts and on its own: node bench/heap-retained.ts FILE.heapsnapshot. Reads only.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Constructors whose instances hold the operator's state; the nearest one dominating an object is charged. */
export const HOLDERS: readonly string[] = [
  'Informer',
  'ReleaseCache',
  'CachedReleaseReader',
  'StatusReleaseMemo',
  'OutsideObjectMemo',
  'OwnedManifestMemo',
  'LoadedChartMemo',
  'ChartDigestMemo',
  'DriftRepairer',
  'DriftConfirmer',
  'DependentWatcher',
  'ReferenceIndex',
  'WorkQueue',
  'ExponentialBackoff',
  'EventCorrelator',
  'Controller',
  'HelmReconciler',
  'OperatorMetrics',
  'Registry',
  'ChartRolloutGate',
  'AdoptionQueue',
  'UninstallBatches',
];

export interface Retained {
  readonly total: number;
  /** Holder (e.g. "Informer Secret") → bytes retained and instances. */
  readonly byHolder: ReadonlyMap<string, { bytes: number; n: number }>;
}

export function retainedByHolder(file: string, holders: readonly string[] = HOLDERS): Retained {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields: nf, node_types: nt, edge_fields: ef, edge_types: et } = s.snapshot.meta;
  const N = nf.length;
  const E = ef.length;
  const [T, NAME, SIZE, EC] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f)) as number[];
  const [ET, EN, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as number[];
  const count = s.nodes.length / N;
  const nodeType = (i: number) => nt[0][s.nodes[i * N + (T ?? 0)] ?? 0] ?? '?';
  const name = (i: number) => s.strings[s.nodes[i * N + (NAME ?? 0)] ?? 0] ?? '';
  const weak = et[0].indexOf('weak');
  const first = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) first[i + 1] = (first[i] ?? 0) + (s.nodes[i * N + (EC ?? 0)] ?? 0) * E;
  const succ = (i: number, fn: (to: number, e: number) => void) => {
    for (let e = first[i] ?? 0; e < (first[i + 1] ?? 0); e += E) {
      if (s.edges[e + (ET ?? 0)] === weak) continue;
      fn((s.edges[e + (ETO ?? 0)] ?? 0) / N, e);
    }
  };
  // Reverse postorder from the root (node 0), iteratively.
  const order = new Int32Array(count).fill(-1); // node → postorder number
  const post: number[] = [];
  const stack: number[] = [0];
  const edgeAt = new Uint32Array(count);
  const seen = new Uint8Array(count);
  seen[0] = 1;
  edgeAt[0] = first[0] ?? 0;
  while (stack.length > 0) {
    const v = stack[stack.length - 1] ?? 0;
    let pushed = false;
    while ((edgeAt[v] ?? 0) < (first[v + 1] ?? 0)) {
      const e = edgeAt[v] ?? 0;
      edgeAt[v] = e + E;
      if (s.edges[e + (ET ?? 0)] === weak) continue;
      const to = (s.edges[e + (ETO ?? 0)] ?? 0) / N;
      if (seen[to]) continue;
      seen[to] = 1;
      edgeAt[to] = first[to] ?? 0;
      stack.push(to);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[v] = post.length;
      post.push(v);
    }
  }
  // Predecessors of reachable nodes.
  const preds: number[][] = Array.from({ length: count }, () => []);
  for (const v of post) succ(v, (to) => preds[to]?.push(v));
  // Cooper, Harvey and Kennedy: iterate to a fixed point over reverse postorder.
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while ((order[a] ?? 0) < (order[b] ?? 0)) a = idom[a] ?? 0;
      while ((order[b] ?? 0) < (order[a] ?? 0)) b = idom[b] ?? 0;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const v = post[k] ?? 0;
      let d = -1;
      for (const p of preds[v] ?? []) if (idom[p] !== -1) d = d === -1 ? p : intersect(p, d);
      if (d !== -1 && idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  // The label of a holder instance: an Informer by the kind of its resource (#o.resource.kind).
  const edgeTo = (i: number, edge: string): number | undefined => {
    let found: number | undefined;
    succ(i, (to, e) => {
      if (found === undefined && s.strings[s.edges[e + (EN ?? 0)] ?? 0] === edge) found = to;
    });
    return found;
  };
  const label = (i: number) => {
    if (name(i) !== 'Informer') return name(i);
    const res = edgeTo(edgeTo(i, '#o') ?? -1, 'resource');
    const kind = res === undefined ? undefined : edgeTo(res, 'kind');
    return `Informer ${kind === undefined ? '?' : name(kind)}`;
  };
  const isHolder = new Set(holders);
  // Nearest holder dominating each node, top-down (reverse postorder puts dominators first).
  const holderOf = new Int32Array(count).fill(-1);
  const byHolder = new Map<string, { bytes: number; n: number }>();
  let total = 0;
  const labels = new Map<number, string>();
  for (let k = post.length - 1; k >= 0; k--) {
    const v = post[k] ?? 0;
    const d = idom[v] ?? 0;
    const own = nodeType(v) === 'object' && isHolder.has(name(v));
    holderOf[v] = own ? v : v === 0 ? -1 : (holderOf[d] ?? -1);
    const h = holderOf[v] ?? -1;
    let key: string;
    if (h === -1) key = `(not held: ${nodeType(v)})`;
    else {
      key = labels.get(h) ?? label(h);
      labels.set(h, key);
    }
    const size = s.nodes[v * N + (SIZE ?? 0)] ?? 0;
    total += size;
    const c = byHolder.get(key) ?? { bytes: 0, n: 0 };
    c.bytes += size;
    if (own) c.n++;
    byHolder.set(key, c);
  }
  return { total, byHolder };
}

/** A markdown table of `r`, largest first. */
export function retainedTable(r: Retained, title: string): string {
  const mib = (b: number) => (b / 1024 / 1024).toFixed(2);
  const rows = [...r.byHolder].sort((a, b) => b[1].bytes - a[1].bytes);
  const lines = [`## ${title}: ${mib(r.total)} MiB reachable`, '', '| holder | instances | MiB |', '|---|---|---|'];
  for (const [k, c] of rows) if (c.bytes >= 16 * 1024) lines.push(`| ${k} | ${c.n || ''} | ${mib(c.bytes)} |`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node bench/heap-retained.ts FILE.heapsnapshot');
  console.log(retainedTable(retainedByHolder(file), file));
}
