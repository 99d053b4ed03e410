// The CR annotation helm.sdk.operatorframework.io/values-from: a YAML or JSON list of Flux-style references to
// ConfigMaps and Secrets in the CR's namespace ({kind, name, valuesKey, targetPath, optional}), parsed and checked,
// and ValuesFromError, the error of everything that can go wrong with them. Pure; called by the reconciler and the
// manager's reference watch. Never puts data of a referenced object in a message.
import type { ErrorCode } from '../core/codes.js';
import { OperatorError } from '../core/errors.js';
import { isRecord } from '../core/guards.js';
import type { ApiResource } from '../kube/types.js';
import { parseStringInto, StrvalsError } from './strvals.js';
import type { OverrideTree } from './values-tree.js';
import { parseDocument } from './yaml.js';

export const VALUES_FROM_ANNOTATION = 'helm.sdk.operatorframework.io/values-from';
/** Flux's default key: the referenced object's `values.yaml`. */
export const DEFAULT_VALUES_KEY = 'values.yaml';

export type ReferenceKind = 'ConfigMap' | 'Secret';

/** The API resource of each kind a values-from reference names (the reader's GETs, the reference watch). */
export const REFERENCE_RESOURCES: Readonly<Record<ReferenceKind, ApiResource>> = {
  ConfigMap: { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  Secret: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
};

/** One reference, with Flux's defaults filled in. */
export interface ValuesReference {
  readonly kind: ReferenceKind;
  readonly name: string;
  readonly valuesKey: string;
  /** Where the key's text goes, as one string (Helm's --set key syntax); absent: the key holds a YAML map. */
  readonly targetPath?: string;
  /** A missing object or key is skipped instead of failing. */
  readonly optional: boolean;
}

type ValuesFromCode = Extract<ErrorCode, 'VALUES_FROM_INVALID' | 'VALUES_FROM_UNRESOLVED'>;

/**
 * VALUES_FROM_INVALID: the annotation itself is malformed; VALUES_FROM_UNRESOLVED: a reference cannot be read or
 * used (missing, forbidden, a missing key, data that is not YAML). The message names the reference and what to do.
 */
export class ValuesFromError extends OperatorError {
  readonly code: ValuesFromCode;
  constructor(message: string, code: ValuesFromCode, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

const FIELDS = ['kind', 'name', 'valuesKey', 'targetPath', 'optional'];
/** Flux's patterns and lengths (ValuesReference in helm-controller's API). */
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUES_KEY = /^[-._a-zA-Z0-9]+$/;
const TARGET_PATH = /^([a-zA-Z0-9_\-.\\/]|\[[0-9]{1,5}\])+$/;
const EXAMPLE = '- {kind: Secret, name: db-credentials, valuesKey: values.yaml}';

/** `Secret "db" key "values.yaml"`: how messages name a reference. */
export function describeReference(ref: Pick<ValuesReference, 'kind' | 'name' | 'valuesKey'>): string {
  return `${ref.kind} ${JSON.stringify(ref.name)} key ${JSON.stringify(ref.valuesKey)}`;
}

/** The references of the annotation's text, in order; [] when it is absent or blank. Throws VALUES_FROM_INVALID. */
export function parseValuesFrom(text: string | undefined): ValuesReference[] {
  if (text === undefined || text.trim() === '') return [];
  const doc = parseDocument(text, { version: '1.1' });
  const syntax = doc.errors[0];
  if (syntax) {
    const at = syntax.linePos?.[0];
    const where = at ? ` (line ${at.line}, column ${at.col})` : '';
    throw invalid(`is not valid YAML or JSON${where}; write a list such as ${EXAMPLE}`);
  }
  const items: unknown = doc.toJS();
  if (!Array.isArray(items)) throw invalid(`must be a list of references, such as ${EXAMPLE}`);
  return items.map((item, i) => parseReference(item, i + 1));
}

function parseReference(item: unknown, n: number): ValuesReference {
  const bad = (why: string) => invalid(`item ${n}: ${why}`);
  if (!isRecord(item)) throw bad(`must be a mapping such as {kind: Secret, name: db-credentials}`);
  const unknown = Object.keys(item).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) {
    throw bad(`unknown field ${JSON.stringify(unknown[0])} (the fields are ${FIELDS.join(', ')})`);
  }
  const { kind, name, valuesKey = DEFAULT_VALUES_KEY, targetPath, optional = false } = item;
  if (kind !== 'ConfigMap' && kind !== 'Secret') throw bad(`kind must be ConfigMap or Secret, not ${show(kind)}`);
  if (typeof name !== 'string' || name.length > 253 || !NAME.test(name)) {
    throw bad(`name must be the name of a ${kind} in the custom resource's namespace, not ${show(name)}`);
  }
  if (typeof valuesKey !== 'string' || valuesKey.length > 253 || !VALUES_KEY.test(valuesKey)) {
    throw bad(`valuesKey must be a key of the ${kind}'s data (letters, digits, "-", "_", "."), not ${show(valuesKey)}`);
  }
  if (typeof optional !== 'boolean') throw bad(`optional must be true or false, not ${show(optional)}`);
  const ref: ValuesReference = { kind, name, valuesKey, optional };
  if (targetPath === undefined || targetPath === null || targetPath === '') return ref;
  if (typeof targetPath !== 'string' || targetPath.length > 250 || !TARGET_PATH.test(targetPath)) {
    throw bad(`targetPath must be a dotted path such as image.tag or hosts[0].name, not ${show(targetPath)}`);
  }
  const problem = targetPathProblem(targetPath);
  if (problem !== undefined) throw bad(`targetPath ${JSON.stringify(targetPath)}: ${problem}`);
  return { ...ref, targetPath };
}

/** Why Helm's --set parser would not place exactly one value at `path`; undefined when it would. */
function targetPathProblem(path: string): string | undefined {
  const probe: OverrideTree = {};
  try {
    placeString(probe, path, 'x');
  } catch (err) {
    if (err instanceof StrvalsError) return err.message;
    throw err;
  }
  return leaves(probe) === 1 ? undefined : 'it must name one value';
}

function leaves(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + leaves(x), 0);
  if (isRecord(v)) return Object.values(v).reduce((n: number, x) => n + leaves(x), 0);
  return v === null ? 0 : 1;
}

/**
 * Sets `value`, verbatim and as a string, at `path` in `tree` (changed in place), with Helm's --set key syntax:
 * `a.b` nests maps, `list[0]` indexes lists, a backslash escapes `.`. The value is escaped first, so a comma, a
 * backslash or a leading `{` in it stays as it is. Throws a StrvalsError for a path that conflicts with the tree.
 */
export function placeString(tree: OverrideTree, path: string, value: string): void {
  parseStringInto(`${path}=${value.replace(/[\\,{]/g, '\\$&')}`, tree);
}

function invalid(why: string): ValuesFromError {
  return new ValuesFromError(
    `annotation ${VALUES_FROM_ANNOTATION} ${why}; fix the annotation (nothing was installed or changed)`,
    'VALUES_FROM_INVALID',
  );
}

function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
