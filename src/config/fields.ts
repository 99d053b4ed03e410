// Helpers for reading one YAML mapping of watches.yaml the way operator-sdk's Go decoder would: case-insensitive
// field matching with notes on what looks wrong, Go duration fields, and the wording used in every problem message.
// Called by the watches loader and the label-selector reader. Never touches the filesystem; throws only what a
// duration parser throws that is not a ConfigError.
import { ConfigError } from '../core/errors.js';
import { isRecord } from '../core/guards.js';
import { yamlScalarToString } from './yaml-scalar.js';

/** Records one problem (an error or a warning) about the entry being read. */
export type Report = (message: string) => void;

/** A YAML mapping as read by toJS (a Date is a scalar to Go, so it is not one). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !(value instanceof Date);
}

/**
 * Matches keys to known fields case-insensitively, like Go's encoding/json; notes say what looks wrong. An unknown key
 * is ignored, as operator-sdk does, with a note that suggests the known field it probably meant (`misspelt`: that
 * field → the key, so that a "missing" error can say it too).
 */
export function canonicalFields(raw: Record<string, unknown>, known: readonly string[], path: string) {
  const fields = new Map<string, unknown>();
  const spelledAs = new Map<string, string>();
  const misspelt = new Map<string, string>();
  const notes: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const canonical = known.find((k) => k.toLowerCase() === key.toLowerCase());
    const previous = canonical && spelledAs.get(canonical);
    if (!canonical) {
      const guess = closestField(key, known);
      if (guess !== undefined && !misspelt.has(guess)) misspelt.set(guess, key);
      const fix = guess ? `did you mean ${q(path + guess)}?` : 'remove it or fix its spelling';
      notes.push(`unknown key ${q(path + key)} is ignored (operator-sdk silently ignores it); ${fix}`);
      continue;
    }
    if (key !== canonical)
      notes.push(
        `key ${q(path + key)} is read as ${q(path + canonical)} (keys are case-insensitive, as in operator-sdk); write ${q(canonical)}`,
      );
    if (previous)
      notes.push(
        `${q(path + previous)} and ${q(path + key)} set the same field; the last one wins, as in operator-sdk`,
      );
    spelledAs.set(canonical, key);
    fields.set(canonical, value);
  }
  for (const field of fields.keys()) misspelt.delete(field);
  return { fields, notes, misspelt };
}

/**
 * The known field an unknown key probably means: one that starts with it or that it starts with (4 characters or
 * more, ignoring case, "-" and "_": "overrideValue", "reconcile-period"), else the nearest within 2 edits (1 for a key
 * of 3 characters or fewer; a swap of two neighbours is one edit: "verison"). Undefined when none is that close.
 */
export function closestField(key: string, known: readonly string[]): string | undefined {
  const simple = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');
  const s = simple(key);
  const prefix = known.find((k) => s.length > 3 && (simple(k).startsWith(s) || s.startsWith(simple(k))));
  if (prefix !== undefined) return prefix;
  const most = s.length <= 3 ? 1 : 2;
  let best: { field: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(s, simple(k));
    if (d <= most && (best === undefined || d < best.d)) best = { field: k, d };
  }
  return best?.field;
}

/** Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`: optimal string alignment. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const up = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** What a value is, for "must be X, not Y" messages. */
export function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${q(value)}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${yamlScalarToString(value)}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  return isSet(value) ? 'a mapping' : 'null';
}

export function q(text: string): string {
  return JSON.stringify(text);
}

/** A Go duration field (a string with a unit, as in operator-sdk), parsed by `parse`; undefined when absent or bad. */
export function durationField(
  fields: ReadonlyMap<string, unknown>,
  field: string,
  parse: (text: string) => number,
  fail: Report,
): number | undefined {
  const value = fields.get(field);
  try {
    if (typeof value === 'string') return parse(value);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail(`${field}: ${err.message}`);
    return undefined;
  }
  if (!fields.has(field)) return undefined;
  const unit = typeof value === 'bigint' || typeof value === 'number' ? `, e.g. "${value}s"` : '';
  const sdk = field === 'reconcilePeriod' ? ' (as in operator-sdk)' : '';
  fail(`${field}: must be a duration string with a unit${unit}, not ${describe(value)}${sdk}`);
  return undefined;
}
