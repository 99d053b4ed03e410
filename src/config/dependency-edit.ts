// Removes named entries from the `dependencies` list of a Chart.yaml or requirements.yaml by cutting their text out,
// so that every other byte, and so every other value helm reads, stays as written. Called by chart-load.ts for the
// copy of a chart handed to helm without the dependencies helm's library would not load. Pure; never guesses: an
// edit whose result does not parse to the same document less those entries is refused.
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, isSeq, parse, parseDocument } from './yaml.js';

const OPTIONS = { version: '1.1', uniqueKeys: false } as const;

type Range = readonly [number, number, number];

/**
 * `text` without the entries of its top-level `dependencies` list whose `name` is in `drop`; the list stays, empty
 * (`[]`), when none is left, as helm then still reads a list. `text` itself when nothing is dropped; undefined when
 * the file cannot be edited this way (not a mapping, a list it cannot cut, a result that would read differently).
 */
export function withoutDependencies(text: string, drop: ReadonlySet<string>): string | undefined {
  const source = text.replace(/^\uFEFF/, '');
  const doc = parseDocument(source, OPTIONS);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined;
  const list = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'dependencies')?.value;
  if (!isSeq(list)) return text;
  const dropped = list.items.map((item) => isMap(item) && drop.has(String(item.get('name'))));
  if (!dropped.includes(true)) return text;
  const ranges = list.items.map((item) => (item && typeof item === 'object' && 'range' in item ? item.range : null));
  if (!list.range || ranges.some((r) => !r)) return undefined;
  const [start, end] = list.range;
  const keep = (ranges as Range[]).filter((_, i) => !dropped[i]);
  let value: string;
  if (keep.length === 0) value = `[]${source.slice(start, end).endsWith('\n') ? '\n' : ''}`;
  else if (list.flow) value = `[${keep.map(([from, to]) => source.slice(from, to)).join(', ')}]`;
  else value = blockEntries(source, start, end, ranges as Range[], dropped);
  const edited = source.slice(0, start) + value + source.slice(end);
  return readsAsExpected(source, edited, drop) ? edited : undefined;
}

/**
 * The kept entries of a block list, each from its `-` to its last line break, joined with the list's indentation.
 * An entry starts at the `-` nearest before its content (the list's start for the first).
 */
function blockEntries(source: string, start: number, end: number, ranges: Range[], dropped: boolean[]): string {
  const indent = source.slice(source.lastIndexOf('\n', start - 1) + 1, start);
  const starts = ranges.map(([from], i) => (i === 0 ? start : source.lastIndexOf('-', from)));
  const entries = starts.map((from, i) => {
    const next = starts[i + 1];
    return next === undefined ? source.slice(from, end) : source.slice(from, source.lastIndexOf('\n', next - 1) + 1);
  });
  return entries
    .filter((_, i) => !dropped[i])
    .map((entry, k) => (k === 0 ? entry : indent + entry))
    .join('');
}

/** The edit parses to the original document with exactly those `dependencies` entries left out. */
function readsAsExpected(source: string, edited: string, drop: ReadonlySet<string>): boolean {
  try {
    const before: unknown = parse(source, OPTIONS);
    const after: unknown = parse(edited, OPTIONS);
    if (!isObject(before) || !Array.isArray(before.dependencies)) return false;
    const named = (d: unknown) => isObject(d) && drop.has(String(d.name));
    return isDeepStrictEqual(after, { ...before, dependencies: before.dependencies.filter((d) => !named(d)) });
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
