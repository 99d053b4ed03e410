// Reads a Helm release manifest (multi-document YAML with `# Source:` comments): the identity of each object it names
// (uninstall/uninstall-wait.ts, ownership/orphans.ts, rbac), the resource policy that makes uninstall keep one, and
// every object in full as Helm reads it (drift repair, deploy). Pure and synchronous; never puts manifest text
// (values, data) in an error. Rewriting a manifest is manifest-edit.ts (its callers import it from there).
import { documentChunks, sourceOf } from './manifest-chunks.js';
import { isMapping, nonEmptyString, own, transformDocument } from './manifest-walk.js';
import { loadChunk } from './manifest-yaml.js';

/** Helm's per-object resource policy annotation. */
export const RESOURCE_POLICY_ANNOTATION = 'helm.sh/resource-policy';
/** The resource policy that makes Helm leave an object in place on uninstall. */
export const KEEP_POLICY = 'keep';
/** The annotations Helm writes on every object it installs: the release that owns it, and its namespace. */
export const RELEASE_NAME_ANNOTATION = 'meta.helm.sh/release-name';
export const RELEASE_NAMESPACE_ANNOTATION = 'meta.helm.sh/release-namespace';
/** The label Helm writes on every object it installs (`Helm`). */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** One object of a release manifest: just enough to find it on the server. */
export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    /** Absent when the template sets none (or sets ''). */
    readonly namespace?: string;
  };
  /** The object's string-valued `metadata.annotations`; absent when it has none. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The chart template it was rendered from (Helm's `# Source:` comment), when the manifest names one. */
  readonly source?: string;
}

/**
 * The objects a release manifest names, in manifest order. Empty documents, non-mapping documents and documents
 * without apiVersion, kind or metadata.name are skipped; `kind: List` and `<Kind>List` documents are replaced by
 * their items (typed-list items without apiVersion and kind inherit them, as the API machinery does).
 * Throws a ManifestParseError for a document that is not valid YAML.
 */
export function splitManifest(manifest: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const chunk of documentChunks(manifest)) {
    const source = sourceOf(chunk.text);
    for (const doc of loadChunk(chunk, 'core')) collect(doc, source, out);
  }
  return out;
}

/** The object's `helm.sh/resource-policy` annotation, or undefined when it has none. */
export function resourcePolicy(obj: Pick<ManifestObject, 'annotations'>): string | undefined {
  const annotations = obj.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, RESOURCE_POLICY_ANNOTATION)
    ? annotations[RESOURCE_POLICY_ANNOTATION]
    : undefined;
}

/** True when the object carries `helm.sh/resource-policy: keep` (case-insensitive, surrounding space ignored). */
export function resourcePolicyKeep(obj: Pick<ManifestObject, 'annotations'>): boolean {
  return resourcePolicy(obj)?.trim().toLowerCase() === KEEP_POLICY;
}

/**
 * True when `helm uninstall` leaves the object alone. That is every object with a resource-policy annotation:
 * `keep` by design, and, through a long-standing quirk of Helm's FilterManifestsToKeep (which operator-sdk's
 * CleanupRelease reuses), any other value too.
 */
export function helmUninstallSkips(obj: Pick<ManifestObject, 'annotations'>): boolean {
  return resourcePolicy(obj) !== undefined;
}

/**
 * Every object of a release manifest in full, read as Helm reads it (YAML 1.1 scalars: `0644` is octal 420,
 * `yes` is true), in manifest order; List documents are replaced by their items, and documents without apiVersion,
 * kind or metadata.name are skipped. For drift repair, which applies these objects as they are.
 * Throws a ManifestParseError for a document that is not valid YAML.
 */
export function manifestObjects(manifest: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const chunk of documentChunks(manifest)) {
    for (const doc of loadChunk(chunk, 'helm')) {
      transformDocument(doc, (obj) => {
        const metadata = own(obj, 'metadata');
        if (isMapping(metadata) && nonEmptyString(own(metadata, 'name')) !== undefined) out.push(obj);
        return obj;
      });
    }
  }
  return out;
}

function collect(doc: unknown, source: string | undefined, out: ManifestObject[]): void {
  if (!isMapping(doc)) return;
  const apiVersion = nonEmptyString(own(doc, 'apiVersion'));
  const kind = nonEmptyString(own(doc, 'kind'));
  const items = own(doc, 'items');
  if (kind?.endsWith('List') && Array.isArray(items)) {
    const itemKind = kind.slice(0, -'List'.length);
    for (const item of items) {
      if (!isMapping(item)) continue;
      const typed = own(item, 'apiVersion') === undefined && own(item, 'kind') === undefined && itemKind !== '';
      collect(typed ? { ...item, apiVersion, kind: itemKind } : item, source, out);
    }
    return;
  }
  const metadata = own(doc, 'metadata');
  if (apiVersion === undefined || kind === undefined || !isMapping(metadata)) return;
  const name = nonEmptyString(own(metadata, 'name'));
  if (name === undefined) return;
  const namespace = nonEmptyString(own(metadata, 'namespace'));
  const annotations = stringEntries(own(metadata, 'annotations'));
  out.push({
    apiVersion,
    kind,
    metadata: namespace === undefined ? { name } : { name, namespace },
    ...(annotations === undefined ? {} : { annotations }),
    ...(source === undefined ? {} : { source }),
  });
}

function stringEntries(value: unknown): Record<string, string> | undefined {
  if (!isMapping(value)) return undefined;
  const entries = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}
