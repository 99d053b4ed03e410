// Adds a `create api` entry to watches.yaml's text: inserted as text above operator-sdk's scaffold marker (or at the
// end), so every existing line, comment and entry stays byte for byte. Called by api.ts; pure. Falls back to the
// comment-keeping Document API only for flow-style lists or when text insertion would not read back correctly.
import { isDeepStrictEqual } from 'node:util';
import { isSeq, parse, parseDocument, YAMLMap } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { ScaffoldError } from '../errors.js';
import { stringifyLike } from '../files.js';
import { WATCH_MARKER } from '../templates/project.js';

export interface WatchEntry {
  /** The fully qualified group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Project-relative chart directory, `charts/<name>`. */
  readonly chart: string;
}

export interface WatchEdit {
  readonly text: string;
  /** False when an identical entry was already there. */
  readonly changed: boolean;
}

/**
 * The watches.yaml text with `entry` added. An entry with the same group/version/kind is an error unless `force`,
 * which points it at the new chart instead (other keys of that entry are kept).
 */
export function addWatchEntry(text: string, entry: WatchEntry, opts: { readonly force: boolean }): WatchEdit {
  const doc = parseDocument(text);
  const invalid = (why: string) =>
    new ScaffoldError(`watches.yaml: ${why}; fix the file, then run create api again`, 'SCAFFOLD_INVALID_FILE');
  if (doc.errors.length > 0) throw invalid(`is not valid YAML (${doc.errors[0]?.message.split('\n')[0]})`);
  const root: unknown = doc.contents;
  if (root !== null && !isSeq(root)) throw invalid('the top level must be a list of watches');
  const entries: unknown[] = isSeq(root) ? (doc.toJS() as unknown[]) : [];
  const same = entries.findIndex(
    (e) => isRecord(e) && e.group === entry.group && e.version === entry.version && e.kind === entry.kind,
  );
  if (same >= 0 && isSeq(root)) {
    const existing = entries[same] as Record<string, unknown>;
    if (existing.chart === entry.chart) return { text, changed: false };
    if (!opts.force) {
      throw new ScaffoldError(
        `watches.yaml already maps ${entry.kind} (${entry.group}/${entry.version}) to ${String(existing.chart)}: ` +
          `pass --force to point it at ${entry.chart}`,
        'SCAFFOLD_WATCH_EXISTS',
      );
    }
    const item = root.items[same];
    if (item instanceof YAMLMap) item.set('chart', entry.chart);
    return { text: stringifyLike(doc, text), changed: true };
  }

  if (!isSeq(root) || !root.flow) {
    const inserted = insertAsText(text, entry, isSeq(root) ? columnOf(text, root.range?.[0]) : 0);
    if (readsBack(inserted, entries, entry)) return { text: inserted, changed: true };
  }
  if (isSeq(root)) {
    root.items.push(doc.createNode({ ...entry }));
    root.flow = false;
  } else {
    doc.contents = doc.createNode([{ ...entry }]) as typeof doc.contents;
  }
  return { text: stringifyLike(doc, text), changed: true };
}

function insertAsText(text: string, entry: WatchEntry, column: number): string {
  const pad = ' '.repeat(column);
  const block = [
    `${pad}- group: ${entry.group}`,
    `${pad}  version: ${entry.version}`,
    `${pad}  kind: ${entry.kind}`,
    `${pad}  chart: ${entry.chart}`,
  ];
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const marker = lines.findIndex((l) => l.trim().startsWith(WATCH_MARKER));
  if (marker >= 0) return [...lines.slice(0, marker), ...block, ...lines.slice(marker)].join(newline);
  const body = text === '' || text.endsWith('\n') ? text : `${text}${newline}`;
  return `${body}${block.join(newline)}${newline}`;
}

/** The column of the character at `offset` (0 when unknown). */
function columnOf(text: string, offset: number | undefined): number {
  if (offset === undefined) return 0;
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function readsBack(text: string, before: readonly unknown[], entry: WatchEntry): boolean {
  try {
    const after: unknown = parse(text);
    return isDeepStrictEqual(after, [...before, { ...entry }]);
  } catch {
    return false;
  }
}
