// Reads a V8 heap snapshot (node --heapsnapshot-signal=SIGUSR2, or the inspector) and prints what holds memory per
// object: the largest groups of equal strings (how many copies of one manifest there are), the strings by the
// retaining path of one copy, and the self size by constructor. A tool for finding what a CR costs, not a test.
// Usage: node bench/heap-dupes.ts FILE.heapsnapshot [MIN_CHARS=256] [BASE.heapsnapshot]: with BASE, also what grew
// from BASE to FILE by constructor (e.g. 100 CRs to 500). Prints no string's content beyond 40 chars.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, minArg, baseFile] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/heap-dupes.ts FILE.heapsnapshot [MIN_CHARS] [BASE.heapsnapshot]');
const minChars = Number(minArg ?? 256);
const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
/** Self size by constructor (objects, closures) or by node type, of the snapshot `snap`. */
function byConstructor(snap: Snapshot): Map<string, { n: number; bytes: number }> {
  const f = snap.snapshot.meta.node_fields;
  const [t, nm, sz] = ['type', 'name', 'self_size'].map((x) => f.indexOf(x)) as [number, number, number];
  const out = new Map<string, { n: number; bytes: number }>();
  for (let i = 0; i < snap.nodes.length; i += f.length) {
    const type = snap.snapshot.meta.node_types[0][snap.nodes[i + t] ?? 0] ?? '?';
    const key = type === 'object' || type === 'closure' ? (snap.strings[snap.nodes[i + nm] ?? 0] ?? '') : `(${type})`;
    const c = out.get(key) ?? { n: 0, bytes: 0 };
    c.n++;
    c.bytes += snap.nodes[i + sz] ?? 0;
    out.set(key, c);
  }
  return out;
}
const { node_fields: nf, node_types: nt, edge_fields: ef, edge_types: et } = s.snapshot.meta;
const N = nf.length;
const E = ef.length;
const [T, NAME, SIZE, EC] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f)) as [
  number,
  number,
  number,
  number,
];
const [ET, EN, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number];
const types = nt[0];
const edgeTypes = et[0];
const count = s.nodes.length / N;
const type = (i: number) => types[s.nodes[i * N + T] ?? 0] ?? '?';
const name = (i: number) => s.strings[s.nodes[i * N + NAME] ?? 0] ?? '';
const size = (i: number) => s.nodes[i * N + SIZE] ?? 0;

// First edge of each node, and one retainer (a non-weak edge into it) per node.
const firstEdge = new Uint32Array(count + 1);
for (let i = 0; i < count; i++) firstEdge[i + 1] = (firstEdge[i] ?? 0) + (s.nodes[i * N + EC] ?? 0) * E;
const retainer = new Int32Array(count).fill(-1);
const retainerEdge = new Int32Array(count).fill(-1);
for (let i = 0; i < count; i++) {
  for (let e = firstEdge[i] ?? 0; e < (firstEdge[i + 1] ?? 0); e += E) {
    if (edgeTypes[s.edges[e + ET] ?? 0] === 'weak') continue;
    const to = (s.edges[e + ETO] ?? 0) / N;
    if (retainer[to] === -1) {
      retainer[to] = i;
      retainerEdge[to] = e;
    }
  }
}
const edgeName = (e: number) => {
  const kind = edgeTypes[s.edges[e + ET] ?? 0];
  const n = s.edges[e + EN] ?? 0;
  return kind === 'element' || kind === 'hidden' ? `[${n}]` : (s.strings[n] ?? '?');
};
/** The path of names from a GC root towards node `i` (at most 12 steps), innermost last. */
const pathTo = (i: number) => {
  const steps: string[] = [];
  for (let at = i, n = 0; retainer[at] !== -1 && n < 12; at = retainer[at] ?? -1, n++) {
    const holder = retainer[at] ?? 0;
    const label = type(holder) === 'object' ? name(holder) : type(holder);
    steps.unshift(`${label}.${edgeName(retainerEdge[at] ?? 0)}`);
  }
  return steps.join(' → ');
};

const groups = new Map<string, number[]>();
const byCtor = new Map<string, { n: number; bytes: number }>();
for (let i = 0; i < count; i++) {
  const t = type(i);
  const key = t === 'object' || t === 'closure' ? name(i) : `(${t})`;
  const c = byCtor.get(key) ?? { n: 0, bytes: 0 };
  c.n++;
  c.bytes += size(i);
  byCtor.set(key, c);
  if (t !== 'string' || name(i).length < minChars) continue;
  const g = groups.get(name(i)) ?? [];
  g.push(i);
  groups.set(name(i), g);
}
const total = [...byCtor.values()].reduce((a, c) => a + c.bytes, 0);
const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
console.log(`# ${file}: ${count} nodes, ${kib(total)} self size\n`);
console.log('## self size by constructor (top 15)\n\n| constructor | objects | self size |\n|---|---|---|');
for (const [k, c] of [...byCtor].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 15))
  console.log(`| ${k} | ${c.n} | ${kib(c.bytes)} |`);
console.log(`\n## strings of ${minChars}+ chars held more than once (top 15 by bytes)\n`);
console.log('| copies | chars | bytes | starts with | one retaining path |\n|---|---|---|---|---|');
const dupes = [...groups].filter(([, g]) => g.length > 1);
dupes.sort((a, b) => b[1].reduce((x, i) => x + size(i), 0) - a[1].reduce((x, i) => x + size(i), 0));
for (const [text, g] of dupes.slice(0, 15)) {
  const bytes = g.reduce((x, i) => x + size(i), 0);
  const head = JSON.stringify(text.slice(0, 40)).replaceAll('|', '\\|');
  console.log(
    `| ${g.length} | ${text.length} | ${kib(bytes)} | ${head} | ${pathTo(g[0] ?? 0).replaceAll('|', '\\|')} |`,
  );
}
/** The large strings grouped by `keyOf` each copy: a table of the `top` groups by bytes. */
function stringsBy(title: string, column: string, top: number, keyOf: (i: number) => string): void {
  const by = new Map<string, { n: number; bytes: number }>();
  for (const g of groups.values())
    for (const i of g) {
      const h = by.get(keyOf(i)) ?? { n: 0, bytes: 0 };
      h.n++;
      h.bytes += size(i);
      by.set(keyOf(i), h);
    }
  console.log(`\n## strings of ${minChars}+ chars by ${title} (top ${top})\n`);
  console.log(`| ${column} | strings | bytes |\n|---|---|---|`);
  for (const [k, h] of [...by].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top))
    console.log(`| ${k.replaceAll('|', '\\|')} | ${h.n} | ${kib(h.bytes)} |`);
}
stringsBy('the holder of one copy', 'holder.field', 20, (i) => {
  const holder = retainer[i] ?? -1;
  return holder === -1 ? '(root)' : `${name(holder)}.${edgeName(retainerEdge[i] ?? 0)}`;
});
stringsBy('retaining path, indexes dropped', 'path', 12, (i) =>
  pathTo(i)
    .replace(/\[\d+\]|\.\d+\b/g, '[]')
    .replace(/array\[\]/g, 'array'),
);

if (baseFile) {
  const base = byConstructor(JSON.parse(readFileSync(baseFile, 'utf8')) as Snapshot);
  const now = byConstructor(s);
  const keys = new Set([...base.keys(), ...now.keys()]);
  const grew = [...keys].map((k) => {
    const [b, n] = [base.get(k) ?? { n: 0, bytes: 0 }, now.get(k) ?? { n: 0, bytes: 0 }];
    return { k, objects: n.n - b.n, bytes: n.bytes - b.bytes };
  });
  const totalGrowth = grew.reduce((a, g) => a + g.bytes, 0);
  console.log(`\n## grown from ${baseFile}: ${kib(totalGrowth)} in all (top 20)\n`);
  console.log('| constructor | objects | self size |\n|---|---|---|');
  for (const g of grew.sort((a, b) => b.bytes - a.bytes).slice(0, 20))
    console.log(`| ${g.k.replaceAll('|', '\\|')} | ${g.objects} | ${kib(g.bytes)} |`);
}
