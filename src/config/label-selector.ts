// Label selectors in watches.yaml: reads and validates an entry's `selector` (matchLabels and matchExpressions, as
// metav1.LabelSelector) and renders it as the labelSelector query string Kubernetes would. Called by the watches
// loader. Pure: reports problems through the callbacks it is given and never throws for bad input.
import { canonicalFields, describe, isMapping, isSet, q, type Report } from './fields.js';
import { yamlScalarToString } from './yaml-scalar.js';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type SelectorOperator = (typeof OPERATORS)[number];
export interface LabelSelectorRequirement {
  key: string;
  operator: SelectorOperator;
  values?: string[];
}
/** metav1.LabelSelector; both parts are ANDed. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A lowercase DNS subdomain (RFC 1123), as API groups and label-key prefixes must be. */
export const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_CHARS = 'letters, digits, "-", "_" or ".", starting and ending with a letter or digit';

/** The selector of one entry, or undefined when it is invalid (reported through `fail`) or selects everything. */
export function readSelector(raw: unknown, fail: Report, warn: Report): LabelSelector | undefined {
  if (!isMapping(raw)) {
    fail(`selector: must be a mapping with matchLabels and/or matchExpressions, not ${describe(raw)}`);
    return undefined;
  }
  const { fields, notes } = canonicalFields(raw, ['matchLabels', 'matchExpressions'], 'selector.');
  notes.forEach(warn);
  const selector: LabelSelector = {};
  const labels = fields.get('matchLabels');
  if (isSet(labels) && !isMapping(labels))
    fail(`selector.matchLabels: must be a mapping such as {app: nginx}, not ${describe(labels)}`);
  for (const [key, value] of Object.entries(isMapping(labels) ? labels : {})) {
    const text = yamlScalarToString(value);
    const problem = text === undefined ? `must be a string, not ${describe(value)}` : labelValueProblem(text);
    if (labelKeyProblem(key)) fail(`selector.matchLabels: ${q(key)} is not a valid label key; ${labelKeyProblem(key)}`);
    if (problem) fail(`selector.matchLabels ${q(key)}: ${problem}`);
    else if (text !== undefined) selector.matchLabels = { ...selector.matchLabels, [key]: text };
  }
  const expressions = fields.get('matchExpressions');
  if (isSet(expressions) && !Array.isArray(expressions)) {
    fail(`selector.matchExpressions: must be a list of {key, operator, values}, not ${describe(expressions)}`);
  }
  for (const [i, e] of (Array.isArray(expressions) ? expressions : []).entries()) {
    const requirement = readRequirement(e, `selector.matchExpressions[${i}]`, fail, warn);
    if (requirement) selector.matchExpressions = [...(selector.matchExpressions ?? []), requirement];
  }
  return selector.matchLabels || selector.matchExpressions ? selector : undefined;
}

function readRequirement(raw: unknown, path: string, fail: Report, warn: Report): LabelSelectorRequirement | undefined {
  if (!isMapping(raw)) {
    fail(`${path}: must be a mapping with key, operator and values, not ${describe(raw)}`);
    return undefined;
  }
  const { fields, notes } = canonicalFields(raw, ['key', 'operator', 'values'], `${path}.`);
  notes.forEach(warn);
  let ok = true;
  const bad: Report = (message) => {
    ok = false;
    fail(`${path}.${message}`);
  };
  const key = yamlScalarToString(fields.get('key')) ?? '';
  if (labelKeyProblem(key)) bad(`key: ${q(key)} is not a valid label key; ${labelKeyProblem(key)}`);
  const opText = yamlScalarToString(fields.get('operator')) ?? '';
  const operator = OPERATORS.find((o) => o === opText);
  const guess = OPERATORS.find((o) => o.toLowerCase() === opText.toLowerCase().replace(/[^a-z]/g, ''));
  if (!operator)
    bad(`operator: ${q(opText)} is not one of ${OPERATORS.join(', ')}${guess ? `; write ${q(guess)}` : ''}`);
  const rawValues = fields.get('values');
  const texts = Array.isArray(rawValues) ? rawValues.map(yamlScalarToString) : isSet(rawValues) ? [undefined] : [];
  const values = texts.filter((v) => v !== undefined);
  if (values.length < texts.length) bad(`values: must be a list of strings such as [a, b], not ${describe(rawValues)}`);
  else if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    bad(`values: operator ${operator} needs at least one value; add values: [...]`);
  } else if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    bad(`values: operator ${operator} takes no values; remove them`);
  }
  for (const [i, v] of values.entries()) if (labelValueProblem(v)) bad(`values[${i}]: ${labelValueProblem(v)}`);
  if (!ok || !operator) return undefined;
  return values.length > 0 ? { key, operator, values } : { key, operator };
}

function labelKeyProblem(key: string): string | undefined {
  const [prefix, name = '', ...rest] = key.includes('/') ? key.split('/') : ['', key];
  if (rest.length > 0 || (key.includes('/') && !DNS_SUBDOMAIN.test(prefix ?? ''))) {
    return 'a prefix is a lowercase DNS subdomain followed by one "/", e.g. "example.com/tier"';
  }
  return LABEL_NAME.test(name) ? undefined : `the name must be 1-63 ${LABEL_CHARS}`;
}

function labelValueProblem(value: string): string | undefined {
  return value === '' || LABEL_NAME.test(value)
    ? undefined
    : `${q(value)} is not a valid label value; use "" or 1-63 ${LABEL_CHARS}`;
}

/** A selector as a Kubernetes labelSelector query: requirements sorted by key, In/NotIn values sorted. */
export function labelSelectorString(selector: LabelSelector): string {
  const parts: [string, string][] = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => [k, `${k}=${v}`]);
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const list = `(${[...values].sort().join(',')})`;
    const texts = { In: `${key} in ${list}`, NotIn: `${key} notin ${list}`, Exists: key, DoesNotExist: `!${key}` };
    parts.push([key, texts[operator]]);
  }
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return parts.map(([, text]) => text).join(',');
}
