// Checks a sample CR's spec against the structural schema create api generated for it, as the API server would:
// prune the fields the schema does not keep, replace non-nullable nulls that have a default, then validate (type,
// nullable, int-or-string, enum, required, bounds, lengths, pattern, items, property counts, allOf/anyOf/oneOf/not).
// Called by api.ts before it writes anything. Pure; `format` is not checked, and messages name schema constructs,
// never the sample's values.
import { isDeepStrictEqual } from 'node:util';
import { isRecord } from '../../core/guards.js';
import { PRESERVE, type SchemaProps } from '../schema/keywords.js';

/** One field of the sample the CRD would not keep as it is. */
export interface SampleProblem {
  /** `spec.image.tag`, `spec.ports[0]`. */
  readonly path: string;
  /** pruned: silently dropped; rejected: the create fails; replaced: a null becomes the schema's default. */
  readonly kind: 'pruned' | 'rejected' | 'replaced';
  /** Which schema construct does it, e.g. `"80" is a string, not an integer (type: integer)`. */
  readonly why: string;
}

const INT_OR_STRING = 'x-kubernetes-int-or-string';

/** Every field of `spec` that the structural `schema` (of `spec`) would prune, reject or replace. */
export function checkSample(spec: unknown, schema: SchemaProps): SampleProblem[] {
  const out: SampleProblem[] = [];
  walk(spec, schema, 'spec', out);
  return out;
}

/** Prunes and checks `v` at `path`, appending problems; returns what the server would keep. */
function walk(v: unknown, s: SchemaProps, path: string, out: SampleProblem[]): unknown {
  if (v === null) {
    if (s.nullable === true || (s.type === undefined && s[INT_OR_STRING] !== true)) return v;
    if (s.default !== undefined) {
      const why = `null is dropped (the schema is not nullable) and the default ${show(s.default)} is set instead`;
      out.push({ path, kind: 'replaced', why });
      return s.default;
    }
    out.push({ path, kind: 'rejected', why: `null is not allowed (${typeOf(s)} without nullable: true)` });
    return v;
  }
  if (s[INT_OR_STRING] === true && !Number.isInteger(v) && typeof v !== 'string') {
    out.push({
      path,
      kind: 'rejected',
      why: `is ${kindOf(v)}, not an integer or a string (x-kubernetes-int-or-string)`,
    });
    return v;
  }
  if (typeof s.type === 'string' && !hasType(v, s.type)) {
    out.push({ path, kind: 'rejected', why: `is ${kindOf(v)}, not ${article(s.type)} (type: ${s.type})` });
    return v;
  }
  let kept = v;
  if (isRecord(v) && s.type === 'object') {
    const props = isRecord(s.properties) ? s.properties : {};
    const extra = isRecord(s.additionalProperties) ? s.additionalProperties : undefined;
    const next: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) {
      const declared = Object.hasOwn(props, key) && isRecord(props[key]) ? props[key] : undefined;
      const sub = declared ?? extra;
      if (sub !== undefined) next[key] = walk(value, sub, `${path}.${key}`, out);
      else if (s[PRESERVE] === true) next[key] = value;
      else {
        const why =
          `${path} keeps only the fields it declares (values.schema.json sets additionalProperties: false there), ` +
          `and ${key} is not one of them`;
        out.push({ path: `${path}.${key}`, kind: 'pruned', why });
      }
    }
    kept = next;
  } else if (Array.isArray(v) && s.type === 'array' && isRecord(s.items)) {
    const items = s.items;
    kept = v.map((item, i) => walk(item, items, `${path}[${i}]`, out));
  }
  for (const why of violations(kept, s)) out.push({ path, kind: 'rejected', why });
  return kept;
}

/** The node's own value validations that `v` breaks (children are walk's business). */
function violations(v: unknown, s: SchemaProps): string[] {
  const out: string[] = [];
  if (Array.isArray(s.enum) && !s.enum.some((e) => isDeepStrictEqual(e, v))) {
    out.push(`is not one of ${show(s.enum)} (enum)`);
  }
  if (typeof v === 'string') {
    const length = [...v].length;
    if (typeof s.minLength === 'number' && length < s.minLength) out.push(`is shorter than ${s.minLength} (minLength)`);
    if (typeof s.maxLength === 'number' && length > s.maxLength) out.push(`is longer than ${s.maxLength} (maxLength)`);
    if (typeof s.pattern === 'string' && !matches(v, s.pattern)) out.push(`does not match ${s.pattern} (pattern)`);
  }
  if (typeof v === 'number') out.push(...numberViolations(v, s));
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems)
      out.push(`has fewer than ${s.minItems} items (minItems)`);
    if (typeof s.maxItems === 'number' && v.length > s.maxItems)
      out.push(`has more than ${s.maxItems} items (maxItems)`);
  }
  if (isRecord(v)) {
    const n = Object.keys(v).length;
    if (typeof s.minProperties === 'number' && n < s.minProperties) {
      out.push(`has fewer than ${s.minProperties} fields (minProperties)`);
    }
    if (typeof s.maxProperties === 'number' && n > s.maxProperties) {
      out.push(`has more than ${s.maxProperties} fields (maxProperties)`);
    }
    const required = Array.isArray(s.required) ? s.required : [];
    for (const r of required) if (typeof r === 'string' && !Object.hasOwn(v, r)) out.push(`${r} is missing (required)`);
  }
  out.push(...combinatorViolations(v, s));
  return out;
}

function numberViolations(v: number, s: SchemaProps): string[] {
  const out: string[] = [];
  if (typeof s.minimum === 'number') {
    const exclusive = s.exclusiveMinimum === true;
    if (exclusive ? v <= s.minimum : v < s.minimum) {
      out.push(`is ${exclusive ? 'at or ' : ''}below ${s.minimum} (minimum${exclusive ? ', exclusive' : ''})`);
    }
  }
  if (typeof s.maximum === 'number') {
    const exclusive = s.exclusiveMaximum === true;
    if (exclusive ? v >= s.maximum : v > s.maximum) {
      out.push(`is ${exclusive ? 'at or ' : ''}above ${s.maximum} (maximum${exclusive ? ', exclusive' : ''})`);
    }
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) out.push(`is not a multiple of ${s.multipleOf} (multipleOf)`);
  }
  return out;
}

/** allOf/anyOf/oneOf/not of a structural schema hold value validations only: checked against the same value. */
function combinatorViolations(v: unknown, s: SchemaProps): string[] {
  const branches = (key: string) => (Array.isArray(s[key]) ? (s[key] as unknown[]).filter(isRecord) : []);
  const out: string[] = [];
  for (const b of branches('allOf')) out.push(...violations(v, b).map((w) => `${w} (in allOf)`));
  const any = branches('anyOf');
  if (any.length > 0 && !any.some((b) => violations(v, b).length === 0)) out.push('matches none of the anyOf branches');
  const one = branches('oneOf');
  const passing = one.filter((b) => violations(v, b).length === 0).length;
  if (one.length > 0 && passing !== 1) out.push(`matches ${passing} oneOf branches, not exactly one`);
  if (isRecord(s.not) && violations(v, s.not).length === 0) out.push('matches the schema under not');
  return out;
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isRecord(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return true;
  }
}

/** Go's RE2 and JavaScript agree on the patterns charts use; one JavaScript cannot compile is not checked. */
function matches(v: string, pattern: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(v);
  } catch {
    return true;
  }
}

const kindOf = (v: unknown): string =>
  Array.isArray(v)
    ? 'an array'
    : isRecord(v)
      ? 'an object'
      : Number.isInteger(v)
        ? 'an integer'
        : typeof v === 'number'
          ? 'a number'
          : `a ${typeof v}`;
const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const typeOf = (s: SchemaProps) => (typeof s.type === 'string' ? `type: ${s.type}` : 'int-or-string');

function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
