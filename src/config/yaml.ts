// The one place the `yaml` library (eemeli/yaml) is imported: its comment-preserving parser and Document API, used
// to read watches.yaml and, in the scaffolder, to edit YAML files without losing their comments.
// Re-exports only; no logic here.
export {
  Document,
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  type ParsedNode,
  parse,
  parseAllDocuments,
  parseDocument,
  type Scalar,
  stringify,
  type Tags,
  YAMLMap,
  YAMLSeq,
} from 'yaml';
