// Splits a Helm release manifest (multi-document YAML with `# Source:` comments) into the identity of each object
// it names (used by reconciler/cleanup.ts), and rewrites objects of a rendered manifest (the post-renderer; the
// Secret redaction of reconciler/status-manifest.ts).
// Pure and synchronous; the only module that imports js-yaml; never puts manifest text (values, data) in an error.
import {
  boolCoreTag,
  boolYaml11Tag,
  CORE_SCHEMA,
  DUMP_SCHEMA,
  type DumpOptions,
  defineScalarTag,
  dump,
  floatCoreTag,
  floatYaml11Tag,
  intCoreTag,
  intYaml11Tag,
  loadAll,
  mapTag,
  mergeTag,
  NOT_RESOLVED,
  nullCoreTag,
  nullYaml11Tag,
  type ScalarTagDefinition,
  Schema,
  timestampTag,
  YAMLException,
} from 'js-yaml';
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

/**
 * Rewrites every object of a rendered manifest with `fn`, as a Helm post-renderer does. Documents are cut like
 * splitManifest cuts them; `kind: List` / `<Kind>List` items are rewritten one by one (typed-list items without
 * apiVersion and kind are given them); mappings without apiVersion or kind and non-mapping documents are written
 * back unchanged; empty documents are dropped. Each document comes out as `---`, its leading comment lines
 * (`# Source: ...`) verbatim, then its YAML; comments inside a document are not kept. Strings stay strings for
 * YAML 1.1 and 1.2 readers alike ('yes' and '0755' stay quoted). A plain scalar that YAML 1.1 (Helm's parser) and
 * YAML 1.2 read differently (0644, yes, on, 1_000, 2024-01-01) reaches `fn` as an opaque object whose String() is
 * its text, and is written back as it was, so Helm reads it as it would have without this transform.
 * Throws a ManifestParseError for a document that is not valid YAML; errors thrown by `fn` pass through.
 */
export function transformManifest(
  manifest: string,
  fn: (obj: Record<string, unknown>) => Record<string, unknown>,
): string {
  return rewriteManifest(manifest, fn);
}

/**
 * transformManifest for a few objects: a document is kept byte for byte as rendered (comments included) when
 * `mayChange(text)` is false (it is not even parsed) or when `fn` returns each of its objects as given; the other
 * documents are written as transformManifest writes them. Throws a ManifestParseError like transformManifest.
 */
export function editManifest(
  manifest: string,
  fn: (obj: Record<string, unknown>) => Record<string, unknown>,
  mayChange: (text: string) => boolean,
): string {
  return rewriteManifest(manifest, fn, mayChange);
}

function rewriteManifest(manifest: string, fn: (obj: Mapping) => Mapping, mayChange?: (text: string) => boolean) {
  let out = '';
  for (const chunk of documentChunks(manifest)) {
    if (mayChange && !mayChange(chunk.text)) {
      out += chunk.text;
      continue;
    }
    let docs: unknown[];
    try {
      docs = loadAll(chunk.text, { schema: TRANSFORM_LOAD_SCHEMA });
    } catch (err) {
      throw parseError(err, chunk.firstLine, sourceOf(chunk.text));
    }
    let changed = false;
    const tracked = (obj: Mapping) => {
      const result = fn(obj);
      changed ||= result !== obj;
      return result;
    };
    const rewritten = docs.filter((d) => d !== null && d !== undefined).map((d) => transformDocument(d, tracked));
    if (mayChange && !changed) {
      out += chunk.text;
      continue;
    }
    let comments = leadingComments(chunk.text);
    for (const doc of rewritten) {
      out += `---\n${comments}${dump(doc, DUMP_OPTIONS)}`;
      comments = '';
    }
  }
  return out;
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
    let docs: unknown[];
    try {
      docs = loadAll(chunk.text, { schema: HELM_READ_SCHEMA });
    } catch (err) {
      throw parseError(err, chunk.firstLine, sourceOf(chunk.text));
    }
    for (const doc of docs) {
      transformDocument(doc, (obj) => {
        const metadata = own(obj, 'metadata');
        if (isMapping(metadata) && nonEmptyString(own(metadata, 'name')) !== undefined) out.push(obj);
        return obj;
      });
    }
  }
  return out;
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

/** A plain scalar that YAML 1.1 and YAML 1.2 core read differently (or a too-large integer): kept as written. */
class PlainScalar {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

const CORE_TAGS = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag];
const YAML11_TAGS = [nullYaml11Tag, boolYaml11Tag, intYaml11Tag, floatYaml11Tag, timestampTag];

function resolveWith(tags: readonly ScalarTagDefinition[], text: string): unknown {
  for (const tag of tags) {
    const value: unknown = tag.resolve(text, false, tag.tagName);
    if (value !== NOT_RESOLVED) return value;
  }
  return text;
}

/** First among the implicit tags, so it claims ambiguous plain scalars when loading and keeps them plain on dump. */
const plainTag = defineScalarTag<PlainScalar>('tag:helm-operator.local,2024:plain', {
  implicit: true,
  resolve: (text) => {
    const core = resolveWith(CORE_TAGS, text);
    const unsafe = typeof core === 'number' && Number.isInteger(core) && !Number.isSafeInteger(core);
    return unsafe || !Object.is(core, resolveWith(YAML11_TAGS, text)) ? new PlainScalar(text) : NOT_RESOLVED;
  },
  identify: (data) => data instanceof PlainScalar,
  represent: (data: PlainScalar) => data.text,
});

/** Mapping keys cannot be objects: an ambiguous plain key becomes its text. */
const unwrap = (key: unknown): unknown => (key instanceof PlainScalar ? key.text : key);
const keyTextMapTag: typeof mapTag = {
  ...mapTag,
  addPair: (container, key, value) => mapTag.addPair(container, unwrap(key), value),
  has: (container, key) => mapTag.has(container, unwrap(key)),
};
const TRANSFORM_LOAD_SCHEMA = new Schema([plainTag, ...SCHEMA.withTags(keyTextMapTag).tags]);
// Helm's reader (YAML 1.1 via sigs.k8s.io/yaml) for plain scalars; timestamps stay strings, as in JSON.
// Later tags replace earlier ones of the same name, so the YAML 1.1 scalars come last.
const HELM_READ_SCHEMA = new Schema([...SCHEMA.tags, nullYaml11Tag, boolYaml11Tag, intYaml11Tag, floatYaml11Tag]);
// DUMP_SCHEMA quotes every string that YAML 1.1 or 1.2 would read as another type ('yes', '0755', '2024-01-01').
const DUMP_OPTIONS: DumpOptions = {
  schema: new Schema([plainTag, ...DUMP_SCHEMA.tags]),
  noRefs: true,
  lineWidth: -1,
};

function transformDocument(doc: unknown, fn: (obj: Mapping) => Mapping): unknown {
  if (!isMapping(doc)) return doc;
  const apiVersion = nonEmptyString(own(doc, 'apiVersion'));
  const kind = nonEmptyString(own(doc, 'kind'));
  const items = own(doc, 'items');
  if (kind?.endsWith('List') && Array.isArray(items)) {
    const itemKind = kind.slice(0, -'List'.length);
    const rewritten = items.map((item: unknown) => {
      const typed =
        isMapping(item) &&
        own(item, 'apiVersion') === undefined &&
        own(item, 'kind') === undefined &&
        apiVersion !== undefined &&
        itemKind !== '';
      return transformDocument(typed ? { ...item, apiVersion, kind: itemKind } : item, fn);
    });
    return { ...doc, items: rewritten };
  }
  return apiVersion !== undefined && kind !== undefined ? fn(doc) : doc;
}

/** The comment lines that open a chunk (after its `---`), each ending in a newline; blank lines are left out. */
function leadingComments(text: string): string {
  let out = '';
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    let line = text.slice(start, end < 0 ? text.length : end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (start === 0 && /^---(?=[ \t]|$)/.test(line)) line = line.slice(3).trim();
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) break;
    if (trimmed !== '') out += `${line}\n`;
    if (end < 0) break;
    start = end + 1;
  }
  return out;
}
