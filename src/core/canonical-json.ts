// Canonical JSON: object keys sorted, no whitespace, and a TypeError where JSON.stringify would lose information.
// Used to compare values and statuses and to fingerprint a release's inputs. Pure; never reads anything.
/**
 * JSON with object keys sorted recursively (by UTF-16 code unit), no whitespace. Follows JSON.stringify for
 * `toJSON` and for `undefined` (dropped from objects, `null` in arrays), but throws a TypeError where JSON.stringify
 * would silently lose information: non-finite numbers, bigint, functions, symbols, Map, Set, cycles, or `undefined`
 * at the top.
 */
export function canonicalJson(value: unknown): string {
  const text = encode(value, new Set());
  if (text === undefined) throw new TypeError('canonicalJson: top-level value is not representable in JSON');
  return text;
}

function encode(value: unknown, parents: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (value === undefined) return undefined;
  if (typeof value !== 'object') throw new TypeError(`canonicalJson: unsupported ${typeof value}`);
  if (value instanceof Map || value instanceof Set) throw new TypeError('canonicalJson: Map and Set are unsupported');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encode(toJSON.call(value), parents);
  if (parents.has(value)) throw new TypeError('canonicalJson: cyclic structure');
  parents.add(value);
  try {
    if (Array.isArray(value)) {
      return `[${value.map((item: unknown) => encode(item, parents) ?? 'null').join(',')}]`;
    }
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const encoded = encode(record[key], parents);
      if (encoded !== undefined) members.push(`${JSON.stringify(key)}:${encoded}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    parents.delete(value);
  }
}
