// The absent-value rules of drift repair: which desired values a live object covers without carrying them (null,
// {}, [] and, where the live field is absent, 0, false and ''), and the null-free apply body that goes with them.
// Used by compare.ts and repair.ts. Pure; never lets a zero value cover a *different* live value (0 against 3).

/** The keys and list indices leading to a value; list elements are their index in the desired list. */
export type Trail = readonly (string | number)[];

/**
 * Free-form maps whose values the server stores as given, empty strings included: there a desired '' (or 0 or
 * false) is a value the live map must carry, not an absence (a deleted `data.key: ""` is drift).
 */
const VALUE_MAPS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'matchLabels',
  'nodeSelector',
  'selector',
]);

/** Whether `v` is missing: undefined or null (the API server never stores a null). */
export function isUnset(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** Whether `v` is an empty map or an empty list, which the server drops (omitempty) or fills in. */
function isEmptyCollection(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0;
}

/** Whether `v` is a scalar's zero value (0, false, ''), which the server omits for omitempty fields. */
function isZeroScalar(v: unknown): boolean {
  return v === 0 || v === false || v === '';
}

/** Whether the value at `trail` is an entry of a free-form map (labels, ConfigMap data, a Service selector, …). */
function inValueMap(trail: Trail): boolean {
  const parent = trail[trail.length - 2];
  return typeof parent === 'string' && VALUE_MAPS.has(parent);
}

/**
 * Whether the desired value `want` at `trail` is covered by the live value `got` (so it needs no closer look): a
 * null is "no opinion", whatever is live (the server may have filled the field in, e.g. an allocated nodePort; the
 * repair leaves nulls out of its apply: see withoutNulls); an empty map or list is dropped or filled in by the
 * server; and a zero value is covered by an absent live field, since the server omits zero values. A zero value
 * against a present live value is not covered here: the caller compares them.
 */
export function coveredAsAbsent(want: unknown, got: unknown, trail: Trail): boolean {
  if (isUnset(want) || isEmptyCollection(want)) return true;
  return isUnset(got) && isZeroScalar(want) && !inValueMap(trail);
}

/**
 * `value` without its null map entries, at any depth (list elements stay, so that positions do not move). A drift
 * repair applies this, so that a rendered null stays "no opinion": in a server-side apply a null clears most fields
 * (a scalar, a list, a spec map such as nodeSelector), which would fight whoever set them.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => withoutNulls(v)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const kept = Object.entries(value).filter(([, v]) => !isUnset(v));
  return Object.fromEntries(kept.map(([k, v]) => [k, withoutNulls(v)])) as T;
}
