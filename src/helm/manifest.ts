// Splits a Helm release manifest (multi-document YAML with `# Source:` comments) into the identity of each object
// it names: apiVersion, kind, name, namespace and annotations. Used by reconciler/cleanup.ts (uninstall-wait).
// Pure and synchronous; never keeps object bodies, and never puts manifest text (values, data) in an error.
import { CORE_SCHEMA, loadAll, mergeTag, YAMLException } from 'js-yaml';
import { OperatorError } from '../core/errors.js';

/** Helm's per-object resource policy annotation. */
export const RESOURCE_POLICY_ANNOTATION = 'helm.sh/resource-policy';
/** The resource policy that makes Helm leave an object in place on uninstall. */
export const KEEP_POLICY = 'keep';

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

/** A manifest document is not valid YAML. Carries only positions and the template path, never manifest text. */
export class ManifestParseError extends OperatorError {
  readonly code = 'HELM_MANIFEST_INVALID';
  /** The `# Source:` template of the broken document, when the manifest names one. */
  readonly source: string | undefined;
  /** 1-based line and column in the whole manifest, when the parser reported a position. */
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(init: { source: string | undefined; line: number | undefined; column: number | undefined; why: string }) {
    const what = init.source === undefined ? 'a release manifest document' : `template ${init.source}`;
    const where = init.line === undefined ? '' : ` at manifest line ${init.line}, column ${init.column ?? 1}`;
    super(`cannot parse the release manifest: ${what} is not valid YAML${where}${init.why}`);
    this.source = init.source;
    this.line = init.line;
    this.column = init.column;
  }
}

// YAML 1.2 core scalars (so `yes` or `2024-01-01` stay strings, as sigs.k8s.io/yaml keeps them for string
// fields) plus `<<` merge keys, which Helm's YAML 1.1 parser accepts.
const SCHEMA = CORE_SCHEMA.withTags(mergeTag);
/** A document start marker: `---` at column 0, followed by whitespace or the end of the line. */
const SEPARATOR = /^---(?=[ \t\r\n]|$)/gm;
const SOURCE_COMMENT = /^#[ \t]*Source:[ \t]*(\S.*?)[ \t]*$/;
/** Parser reasons made only of plain words are fixed library text; anything else may quote the input. */
const SAFE_REASON = /^[A-Za-z0-9 ,()-]{1,120}$/;

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
    let docs: unknown[];
    try {
      docs = loadAll(chunk.text, { schema: SCHEMA });
    } catch (err) {
      throw parseError(err, chunk.firstLine, source);
    }
    for (const doc of docs) collect(doc, source, out);
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

interface Chunk {
  readonly text: string;
  /** 0-based line of the manifest where this chunk starts. */
  readonly firstLine: number;
}

/** Cuts the manifest at document start markers; each chunk keeps its own `---` line. */
function documentChunks(manifest: string): Chunk[] {
  const starts = [0];
  for (const match of manifest.matchAll(SEPARATOR)) if (match.index > 0) starts.push(match.index);
  const chunks: Chunk[] = [];
  let line = 0;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i] ?? 0;
    const text = manifest.slice(start, starts[i + 1] ?? manifest.length);
    chunks.push({ text, firstLine: line });
    line += countNewlines(text);
  }
  return chunks;
}

/** The `# Source:` path from the comment lines that open a chunk (never from inside the document's content). */
function sourceOf(text: string): string | undefined {
  for (const raw of text.split('\n', 64)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const source = SOURCE_COMMENT.exec(line)?.[1];
    if (source !== undefined) return source;
    const trimmed = (line.startsWith('---') ? line.slice(3) : line).trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) return undefined;
  }
  return undefined;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function parseError(err: unknown, firstLine: number, source: string | undefined): ManifestParseError {
  if (!(err instanceof YAMLException)) {
    // Not a syntax error: say nothing about the input, not even the error's message.
    const name = err instanceof Error ? err.name : typeof err;
    return new ManifestParseError({ source, line: undefined, column: undefined, why: ` (${name})` });
  }
  const reason = SAFE_REASON.test(err.reason) ? ` (${err.reason})` : '';
  const mark = err.mark;
  return new ManifestParseError({
    source,
    line: mark === undefined ? undefined : firstLine + mark.line + 1,
    column: mark === undefined ? undefined : mark.column + 1,
    why: reason,
  });
}

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(obj: Mapping, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
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
