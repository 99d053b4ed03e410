// The values of `create api --values FILE`: read from each file and set over the chart's values.yaml text, the way
// helm coalesces `-f` files (mappings merged key by key, anything else replaced, null deleting the key), keeping
// values.yaml's comments. The result is the sample CR's spec. Called by api.ts; reads the files, writes nothing.
import { readFile } from 'node:fs/promises';
import { isMap, parse, parseDocument, stringify } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { ScaffoldError } from '../errors.js';
import type { ValueSet } from '../rbac/value-sets.js';

/** A values file given to --values, parsed: its flag (for messages) and its mapping. */
export interface ValuesOverride {
  readonly flag: string;
  readonly values: Record<string, unknown>;
}

/** Reads the values files of `sets` (those with a file and a flag), in order; each must hold a mapping. */
export async function readOverrides(sets: readonly ValueSet[], signal: AbortSignal): Promise<ValuesOverride[]> {
  const out: ValuesOverride[] = [];
  for (const set of sets) {
    if (set.file === undefined || set.flag === undefined) continue;
    let doc: unknown;
    try {
      doc = parse(await readFile(set.file, { encoding: 'utf8', signal }));
    } catch (err) {
      signal.throwIfAborted();
      throw new ScaffoldError(`${set.flag}: not valid YAML (${(err as Error).message})`, 'SCAFFOLD_BAD_ARGS', {
        cause: err,
      });
    }
    if (doc === null || doc === undefined) continue;
    if (!isRecord(doc)) throw new ScaffoldError(`${set.flag}: must hold a mapping of values`, 'SCAFFOLD_BAD_ARGS');
    out.push({ flag: set.flag, values: doc });
  }
  return out;
}

/**
 * values.yaml's text with each override set over it, comments kept; values.yaml's text unchanged when there is none.
 * A values.yaml the document API cannot edit (several documents) is replaced by the merged values as plain YAML.
 */
export function applyOverrides(valuesText: string, overrides: readonly ValuesOverride[]): string {
  if (overrides.length === 0) return valuesText;
  const doc = parseDocument(valuesText);
  if (doc.errors.length > 0) {
    let merged: Record<string, unknown> = {};
    try {
      const base: unknown = parse(valuesText);
      if (isRecord(base)) merged = base;
    } catch {
      // Several documents: sample.ts reports values.yaml itself; the overrides alone make the spec.
    }
    for (const o of overrides) merged = coalesce(merged, o.values);
    return stringify(merged, { lineWidth: 0 });
  }
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  for (const o of overrides) setOver(doc, [], o.values);
  return doc.toString({ lineWidth: 0 });
}

function setOver(doc: ReturnType<typeof parseDocument>, path: readonly string[], values: Record<string, unknown>) {
  for (const [key, value] of Object.entries(values)) {
    const at = [...path, key];
    if (value === null) doc.deleteIn(at);
    else if (isRecord(value) && isMap(doc.getIn(at, true))) setOver(doc, at, value);
    else doc.setIn(at, doc.createNode(value));
  }
}

/** helm's coalescing of one values file over another: mappings merged, null deletes, anything else replaces. */
export function coalesce(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    if (value === null) delete out[key];
    else if (isRecord(value) && isRecord(current)) out[key] = coalesce(current, value);
    else out[key] = value;
  }
  return out;
}
