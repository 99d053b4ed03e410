// Turns the objects that values-from references point at into chart values, as Flux's helm-controller does: each
// reference's key is a YAML map merged over the ones before it (deeply, key by key), or with targetPath one string
// placed at that path; optional references whose object or key is missing are skipped. Also collects the strings that
// came from Secrets, for redaction, and each reference's own values (for what the spec shadows). Pure; called by
// reconciler/inputs/values-from.ts. Never puts data in a message.
import { isRecord } from '../core/guards.js';
import { deepMerge } from './overrides.js';
import { StrvalsError } from './strvals.js';
import { describeReference, placeString, ValuesFromError, type ValuesReference } from './values-from.js';
import type { ValuesLayer } from './values-from-shadow.js';
import type { OverrideTree } from './values-tree.js';
import { parseDocument } from './yaml.js';

/** A reference and the object it names in the CR's namespace (undefined: there is none). */
export interface FetchedReference {
  readonly ref: ValuesReference;
  readonly object: { readonly data?: unknown } | undefined;
}

export interface ReferencedValues {
  /** The references' values merged in order (the spec and the overrides go on top of them). */
  readonly values: Record<string, unknown>;
  /** Every string (and number of 4 or more characters) read from a Secret: helm's output must never show them. */
  readonly secrets: readonly string[];
  /** Each reference that was used, in order, with its own values (`Secret ns/db key "values.yaml"`). */
  readonly layers: readonly ValuesLayer[];
}

/** Numbers from a Secret shorter than this are not redacted: "3" would hide every "3" in helm's messages. */
const MIN_SECRET_NUMBER = 4;
const KEYS_SHOWN = 10;

export function referencedValues(namespace: string, fetched: readonly FetchedReference[]): ReferencedValues {
  let values: Record<string, unknown> = {};
  const secrets = new Set<string>();
  const layers: ValuesLayer[] = [];
  for (const { ref, object } of fetched) {
    const where = `${ref.kind} ${namespace}/${ref.name}`;
    if (object === undefined) {
      if (ref.optional) continue;
      throw unresolved(
        `${where} not found: create it in the custom resource's namespace, or mark the reference optional: true`,
      );
    }
    const data = isRecord(object.data) ? object.data : {};
    const raw = Object.hasOwn(data, ref.valuesKey) ? data[ref.valuesKey] : undefined;
    if (typeof raw !== 'string') {
      if (ref.optional) continue;
      const keys = Object.keys(data).sort();
      const shown =
        keys.length === 0
          ? 'it has no keys'
          : `its keys: ${keys.slice(0, KEYS_SHOWN).join(', ')}${keys.length > KEYS_SHOWN ? ', ...' : ''}`;
      throw unresolved(`${where} has no key ${JSON.stringify(ref.valuesKey)} (${shown}): add it, or set valuesKey`);
    }
    const text = ref.kind === 'Secret' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    const fromSecret = ref.kind === 'Secret';
    const source = `${where} key ${JSON.stringify(ref.valuesKey)}`;
    if (ref.targetPath !== undefined) {
      const placed = { ...ref, targetPath: ref.targetPath };
      values = withTargetPath(values, placed, text, namespace);
      layers.push({ source, values: withTargetPath({}, placed, text, namespace) });
      if (fromSecret) addSecret(secrets, text);
      continue;
    }
    const parsed = parseValues(text, ref, namespace);
    if (fromSecret) collect(parsed, secrets);
    values = deepMerge(values, parsed);
    layers.push({ source, values: parsed });
  }
  return { values, secrets: [...secrets], layers };
}

function withTargetPath(
  values: Record<string, unknown>,
  ref: ValuesReference & { targetPath: string },
  text: string,
  namespace: string,
): Record<string, unknown> {
  const tree = deepMerge({}, values) as OverrideTree; // a copy: the caller's tree stays as it was on failure
  try {
    placeString(tree, ref.targetPath, text);
  } catch (err) {
    if (!(err instanceof StrvalsError)) throw err;
    throw unresolved(
      `${describeReference(ref)} in ${namespace} cannot be placed at targetPath ${JSON.stringify(ref.targetPath)}: ` +
        `${err.message}; change targetPath or the references before it`,
    );
  }
  return tree;
}

/** The key's text as a map of values, read as Helm reads values files (YAML 1.1; timestamps stay strings). */
function parseValues(text: string, ref: ValuesReference, namespace: string): Record<string, unknown> {
  const what = `${describeReference(ref)} in ${namespace}`;
  const doc = parseDocument(text, {
    version: '1.1',
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
  });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    const where = at ? ` (line ${at.line}, column ${at.col})` : '';
    throw unresolved(`${what} is not valid YAML${where}: fix the data, or use targetPath to take it as one string`);
  }
  let parsed: unknown;
  try {
    parsed = doc.toJS({ maxAliasCount: 100 });
  } catch {
    throw unresolved(`${what} cannot be read as YAML (too many aliases): fix the data`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isRecord(parsed)) {
    const shape = Array.isArray(parsed) ? 'a list' : `a single ${typeof parsed}`;
    throw unresolved(`${what} holds ${shape}, not a map of values: make it a YAML map, or set targetPath`);
  }
  if (!jsonLike(parsed)) {
    throw unresolved(
      `${what} holds a value JSON cannot carry (a !!binary, !!set or !!omap tag, or .inf/.nan): fix the data`,
    );
  }
  return parsed;
}

function jsonLike(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(jsonLike);
  if (!isRecord(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && Object.values(v).every(jsonLike);
}

function collect(v: unknown, into: Set<string>): void {
  if (typeof v === 'string') addSecret(into, v);
  else if (typeof v === 'number' && String(v).length >= MIN_SECRET_NUMBER) into.add(String(v));
  else if (Array.isArray(v)) for (const x of v) collect(x, into);
  else if (isRecord(v)) for (const x of Object.values(v)) collect(x, into);
}

function addSecret(into: Set<string>, s: string): void {
  if (s.trim() !== '') into.add(s);
}

function unresolved(message: string): ValuesFromError {
  return new ValuesFromError(`values-from: ${message} (nothing was installed or changed)`, 'VALUES_FROM_UNRESOLVED');
}
