// The write semantics test/fakes/kube-api.ts needs, as pure functions: JSON merge patch (RFC 7386), server-side
// apply as a deep merge that ignores nulls, a minimal JSON patch, and equality label selectors.
// Test-only; never mutates its inputs.

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7386: maps merge, `null` removes the key, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Server-side apply, roughly: maps merge, `null` and `undefined` are ignored, anything else replaces. */
export function applyPatch(stored: unknown, body: unknown): unknown {
  if (body === null || body === undefined) return stored;
  if (!isMap(body) || !isMap(stored)) return structuredClone(body);
  const out = { ...stored };
  for (const [k, v] of Object.entries(body)) out[k] = applyPatch(stored[k], v);
  return out;
}

interface JsonPatchOp {
  readonly op: 'add' | 'replace' | 'remove' | 'test';
  readonly path: string;
  readonly value?: unknown;
}

/** RFC 6902 add/replace/remove/test on map keys and array indexes (`-` appends). */
export function jsonPatch(target: unknown, ops: readonly JsonPatchOp[]): unknown {
  const doc = structuredClone(target) as Record<string, unknown>;
  for (const { op, path, value } of ops) {
    const parts = path
      .split('/')
      .slice(1)
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = parts.pop() ?? '';
    let parent: unknown = doc;
    for (const p of parts) parent = (parent as Record<string, unknown>)[p];
    if (op === 'test') {
      if (JSON.stringify((parent as Record<string, unknown>)[last]) !== JSON.stringify(value))
        throw new Error(`json patch test failed at ${path}`);
    } else if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op === 'remove') parent.splice(i, 1);
      else parent.splice(i, op === 'replace' ? 1 : 0, structuredClone(value));
    } else if (isMap(parent)) {
      if (op === 'remove') delete parent[last];
      else parent[last] = structuredClone(value);
    } else throw new Error(`json patch: no parent at ${path}`);
  }
  return doc;
}

/** `a=b,c!=d,e,!f` equality/existence selectors, plus `k in (x,y)`; anything else matches everything. */
export function matchesSelector(labels: Record<string, string> | undefined, selector: string | undefined): boolean {
  if (selector === undefined || selector === '') return true;
  const have = labels ?? {};
  for (const term of selector.split(/,(?![^(]*\))/).map((t) => t.trim())) {
    const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = (set[3] ?? '').split(',').map((v) => v.trim());
      const key = set[1] ?? '';
      const hit = key in have && values.includes(have[key] ?? '');
      if (set[2] === 'in' ? !hit : hit) return false;
    } else if (term.includes('!=')) {
      const [k = '', v] = term.split('!=');
      if (have[k] === v) return false;
    } else if (term.includes('=')) {
      const [k = '', v] = term.split(/==?/);
      if (have[k] !== v) return false;
    } else if (term.startsWith('!')) {
      if (term.slice(1) in have) return false;
    } else if (!(term in have)) return false;
  }
  return true;
}
