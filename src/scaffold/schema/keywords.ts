// The JSON Schema vocabulary the values.schema.json converter needs: which keywords Kubernetes structural schemas
// keep, allow inside combinators or cannot express, plus JSON-pointer resolution. Used by values-schema.ts and
// sample-check.ts; pure data and functions.
import { isRecord } from '../../core/guards.js';

/** A schema node: JSON Schema on the way in, a Kubernetes JSONSchemaProps on the way out. */
export type SchemaProps = Record<string, unknown>;

export const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
/** The formats the API server validates (k8s.io/kube-openapi's strfmt registry). */
export const K8S_FORMATS = new Set(
  'bsonobjectid uri email hostname ipv4 ipv6 cidr mac uuid uuid3 uuid4 uuid5 isbn isbn10 isbn13 creditcard ssn hexcolor rgbcolor byte password date duration datetime date-time int32 int64 float double'.split(
    ' ',
  ),
);
/** Keywords that constrain values but have no structural equivalent: dropped with a warning. */
export const UNSUPPORTED = [
  'patternProperties',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'if',
  'then',
  'else',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  '$dynamicRef',
  '$recursiveRef',
];
/** Keywords that may sit inside allOf/anyOf/oneOf/not in a structural schema (value validations only). */
export const VALUE_ONLY = new Set([
  'enum',
  'const',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'required',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
]);
export const ANNOTATIONS = new Set(['$schema', '$id', 'id', 'title', 'examples', 'example', '$comment', 'description']);

/** The validation keywords kept for each type. */
export const KEYWORDS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern'],
  integer: ['minimum', 'maximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'multipleOf'],
  array: ['minItems', 'maxItems'],
  object: ['minProperties', 'maxProperties'],
};

export const pick = (from: SchemaProps, keys: readonly string[]): SchemaProps =>
  Object.fromEntries(keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));

/** `const: x` → `enum: [x]` inside a combinator branch. */
export function constToEnum(s: unknown): unknown {
  if (!isRecord(s)) return s;
  const { const: c, ...rest } = s;
  return c === undefined ? rest : { ...rest, enum: [c] };
}

/** Whether a default can stay: it matches the scalar type and enum (objects and arrays are never kept). */
export function fits(value: unknown, type: string, allowed: unknown, nullable: boolean): boolean {
  if (value === null) return nullable;
  const ok =
    (type === 'string' && typeof value === 'string') ||
    (type === 'boolean' && typeof value === 'boolean') ||
    (type === 'number' && typeof value === 'number') ||
    (type === 'integer' && Number.isInteger(value));
  return ok && (!Array.isArray(allowed) || allowed.some((a) => a === value));
}

/** A local JSON pointer (`#/definitions/x`, `#/$defs/x`, `#`) resolved in the document; undefined otherwise. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}
