// Helpers for reading one YAML mapping of watches.yaml the way operator-sdk's Go decoder would: case-insensitive
// field matching with notes on what looks wrong, and the wording used in every problem message. Called by the
// watches loader and the label-selector reader. Pure: never throws, never touches the filesystem.
import { isRecord } from '../core/guards.js';
import { yamlScalarToString } from './yaml-scalar.js';

/** Records one problem (an error or a warning) about the entry being read. */
export type Report = (message: string) => void;

/** A YAML mapping as read by toJS (a Date is a scalar to Go, so it is not one). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !(value instanceof Date);
}

/** Matches keys to known fields case-insensitively, like Go's encoding/json; notes say what looks wrong. */
export function canonicalFields(raw: Record<string, unknown>, known: readonly string[], path: string) {
  const fields = new Map<string, unknown>();
  const spelledAs = new Map<string, string>();
  const notes: string[] = [];
  const simple = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const [key, value] of Object.entries(raw)) {
    const canonical = known.find((k) => k.toLowerCase() === key.toLowerCase());
    const guess = known.find(
      (k) => simple(key).length > 3 && (simple(k).startsWith(simple(key)) || simple(key).startsWith(simple(k))),
    );
    const previous = canonical && spelledAs.get(canonical);
    if (!canonical) {
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
  return { fields, notes };
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
