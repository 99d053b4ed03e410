// Loads and dumps the YAML documents of a rendered manifest with the schemas Helm's readers need (YAML 1.2 core for
// identities, YAML 1.1 for drift repair, ambiguity-preserving for rewrites), accepting what Helm's YAML library
// accepts (a repeated key, last one wins; a byte order mark at the start of a line). Called by manifest.ts and
// manifest-edit.ts; the only module that imports js-yaml. Pure; never puts manifest text (values, data) in an error.
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
import { ManifestParseError } from './errors.js';
import { type Chunk, sourceOf } from './manifest-chunks.js';

/**
 * How a document is read: `core` (YAML 1.2 core scalars, as sigs.k8s.io/yaml keeps string fields), `transform`
 * (scalars that YAML 1.1 and 1.2 read differently stay opaque, so a rewrite writes them back as they were) or
 * `helm` (YAML 1.1 scalars, as Helm's own reader sees them).
 */
export type LoadMode = 'core' | 'transform' | 'helm';

/** Parser reasons made only of plain words are fixed library text; anything else may quote the input. */
const SAFE_REASON = /^[A-Za-z0-9 ,()-]{1,120}$/;

/**
 * The documents of one chunk, read as Helm's YAML library (go-yaml v2 through sigs.k8s.io/yaml) reads them: a key
 * repeated in a mapping keeps its last value, and a byte order mark at the start of a line is skipped (a template
 * saved with one). Throws a ManifestParseError (positions in the whole manifest) when it is not YAML.
 */
export function loadChunk(chunk: Chunk, mode: LoadMode): unknown[] {
  try {
    // `json: true` is js-yaml's JSON.parse compatibility: its only effect is that a later duplicate key wins.
    return loadAll(withoutLineBoms(chunk.text), { schema: SCHEMAS[mode], json: true });
  } catch (err) {
    throw parseError(err, chunk.firstLine, sourceOf(chunk.text));
  }
}

/** One document as YAML that YAML 1.1 and 1.2 readers read alike ('yes' and '0755' stay quoted strings). */
export function dumpDocument(doc: unknown): string {
  return dump(doc, DUMP_OPTIONS);
}

/** go-yaml skips a byte order mark at column 0 of any line; js-yaml only at the start of the stream. */
function withoutLineBoms(text: string): string {
  return text.includes(BOM) ? text.replace(LINE_BOM, '') : text;
}
const BOM = '\uFEFF';
const LINE_BOM = /^\uFEFF/gm;

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

// YAML 1.2 core scalars (so `yes` or `2024-01-01` stay strings, as sigs.k8s.io/yaml keeps them for string
// fields) plus `<<` merge keys, which Helm's YAML 1.1 parser accepts.
const SCHEMA = CORE_SCHEMA.withTags(mergeTag);
const SCHEMAS: Readonly<Record<LoadMode, Schema>> = {
  core: SCHEMA,
  transform: new Schema([plainTag, ...SCHEMA.withTags(keyTextMapTag).tags]),
  // Helm's reader (YAML 1.1 via sigs.k8s.io/yaml) for plain scalars; timestamps stay strings, as in JSON.
  // Later tags replace earlier ones of the same name, so the YAML 1.1 scalars come last.
  helm: new Schema([...SCHEMA.tags, nullYaml11Tag, boolYaml11Tag, intYaml11Tag, floatYaml11Tag]),
};
// DUMP_SCHEMA quotes every string that YAML 1.1 or 1.2 would read as another type ('yes', '0755', '2024-01-01').
const DUMP_OPTIONS: DumpOptions = {
  schema: new Schema([plainTag, ...DUMP_SCHEMA.tags]),
  noRefs: true,
  lineWidth: -1,
};
