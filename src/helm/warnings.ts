// Reads the API server's unknown-field warnings that helm prints on stderr (`Warning: unknown field "spec.foo"`) and
// names the release objects that carry each field, found in the manifest helm returned. Called by the CLI adapter
// (cli.ts) after a successful install or upgrade. Pure; never returns a value of the manifest (paths and names only,
// scrubbed of the release's values as helm's errors are).
import { ManifestParseError } from './errors.js';
import { manifestObjects } from './manifest.js';
import { isMapping, nonEmptyString, own } from './manifest-walk.js';
import { parseRelease } from './output.js';
import { redact } from './redact.js';
import type { AppliedRelease, UnknownField } from './types.js';

/** At most this many unknown fields are reported per helm call: a broken chart must not flood the events. */
export const MAX_UNKNOWN_FIELDS = 20;

// klog quotes the message (`"Warning: unknown field \"spec.foo\""`); kubectl-style output does not.
const WARNING = /Warning: unknown field \\?"([^"\\\s]+)\\?"/g;

/** The distinct field paths helm's stderr reports as unknown, in order of appearance. */
export function unknownFieldPaths(stderr: string): string[] {
  const paths = new Set<string>();
  for (const m of stderr.matchAll(WARNING)) if (m[1] !== undefined) paths.add(m[1]);
  return [...paths];
}

/**
 * The unknown fields of helm's stderr, each with the objects of `manifest` that hold the field (`Kind/name`, or
 * `Kind/namespace/name` when the manifest sets a namespace); `objects` is empty when none holds it (or the
 * manifest cannot be read). `redact` scrubs each path (list keys may quote values).
 */
export function unknownFields(stderr: string, manifest: string, redact: (text: string) => string): UnknownField[] {
  const paths = unknownFieldPaths(stderr).slice(0, MAX_UNKNOWN_FIELDS);
  if (paths.length === 0) return [];
  const objects = readObjects(manifest);
  return paths.map((path) => {
    const segments = parsePath(path);
    const holders = objects.filter((o) => segments !== undefined && has(o.body, segments)).map((o) => o.ref);
    return { field: redact(path), objects: holders.map(redact) };
  });
}

function readObjects(manifest: string): { ref: string; body: unknown }[] {
  let objects: Record<string, unknown>[];
  try {
    objects = manifestObjects(manifest);
  } catch (err) {
    if (err instanceof ManifestParseError) return [];
    throw err;
  }
  return objects.map((obj) => {
    const metadata = own(obj, 'metadata');
    const meta = isMapping(metadata) ? metadata : {};
    const name = nonEmptyString(own(meta, 'name')) ?? '';
    const namespace = nonEmptyString(own(meta, 'namespace'));
    const kind = nonEmptyString(own(obj, 'kind')) ?? '';
    return { ref: namespace === undefined ? `${kind}/${name}` : `${kind}/${namespace}/${name}`, body: obj };
  });
}

/** `spec.ports[0].name` → ['spec', 'ports', 0, 'name']; undefined for a path in another syntax. */
export function parsePath(path: string): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(part);
    if (m === null || m[1] === undefined) return undefined;
    out.push(m[1]);
    for (const idx of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

function has(body: unknown, segments: readonly (string | number)[]): boolean {
  let at: unknown = body;
  for (const s of segments) {
    if (typeof s === 'number') {
      if (!Array.isArray(at) || s >= at.length) return false;
      at = at[s];
    } else {
      if (!isMapping(at) || !Object.hasOwn(at, s)) return false;
      at = at[s];
    }
  }
  return true;
}

/** helm's `--output json` release of an install or upgrade, with the unknown fields its stderr reported. */
export function appliedRelease(
  out: { readonly stdout: string; readonly stderr: string },
  command: string,
  ref: { readonly release: string; readonly namespace: string },
  secrets: readonly string[],
): AppliedRelease {
  const release = parseRelease(out.stdout, command, ref);
  const fields = unknownFields(out.stderr, release.manifest, (text) => redact(text, secrets));
  return fields.length === 0 ? release : { ...release, unknownFields: fields };
}
