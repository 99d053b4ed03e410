// Reads and validates watches.yaml (operator-sdk helm-operator format) into Watch objects: defaults applied, overrides
// env-expanded, charts resolved against the working directory, selectors rendered as label-selector strings.
// Called once at startup by the CLI. Reports every problem of the file in one ConfigError; never touches the cluster
// and never reads process.env or process.cwd() (both are passed in).
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { parseDuration } from './duration.js';
import { type Env, expandOverrideValue, parseOverrides, yamlScalarToString } from './overrides.js';
import {
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  type ParsedNode,
  parse,
  parseAllDocuments,
  type Scalar,
  type Tags,
} from './yaml.js';

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

/** One watches.yaml entry, validated and defaulted. */
export interface Watch {
  /** API group; "" is the core group. */
  group: string;
  version: string;
  kind: string;
  /** Absolute path of the unpacked chart directory (a relative path in the file is resolved against the cwd). */
  chart: string;
  /** Defaults to true. */
  watchDependentResources: boolean;
  /** Values after `$VAR` expansion, not yet parsed (see parseOverrides); {} when there are none. */
  overrideValues: Record<string, string>;
  /** Only set when it selects something (absent: every custom resource). */
  selector?: LabelSelector;
  /** The selector as a labelSelector query, requirements sorted by key as Kubernetes does: "app=x,!legacy,tier in (a,b)". */
  labelSelector?: string;
  /**
   * Absent (also for "0" in the file) means "use --reconcile-period". A negative value is kept: operator-sdk then
   * never requeues this kind periodically, so callers must not hand it to a timer as is.
   */
  reconcilePeriodMs?: number;
  /** Not an operator-sdk field (helm-operator-plugins has it); absent means "use --max-concurrent-reconciles". */
  maxConcurrentReconciles?: number;
  /** Helm's DryRunOption for the dry-run upgrade that decides whether to upgrade, e.g. "server"; absent when empty. */
  dryRunOption?: string;
}

export interface ParseWatchesOptions {
  /** The watches file as the user named it; every message starts with it. */
  file: string;
  env: Env;
  /** Absolute working directory; relative chart paths resolve against it, as in operator-sdk. */
  cwd: string;
  /** Says why `absPath` is not an unpacked chart directory, or returns undefined. Defaults to checkChartDir. */
  checkChartDir?: (absPath: string) => string | undefined;
}
export interface LoadWatchesOptions extends Omit<ParseWatchesOptions, 'file'> {
  /** Reads a file as UTF-8 and throws when it cannot; defaults to node:fs. */
  readFile?: (absPath: string) => string;
}
export interface LoadedWatches {
  watches: Watch[];
  /** What operator-sdk tolerates but is probably a mistake, one line each, naming the file, line and entry. */
  warnings: string[];
}

type Report = (message: string) => void;
interface Context {
  options: ParseWatchesOptions;
  lineOf: (node: unknown) => number | undefined;
  errors: string[];
  warnings: string[];
  /** GVK → "entry N" of the first entry that watches it. */
  seen: Map<string, string>;
}

const FIELDS = [
  ...['group', 'version', 'kind', 'chart', 'watchDependentResources', 'overrideValues', 'selector'],
  ...['reconcilePeriod', 'maxConcurrentReconciles', 'dryRunOption'],
];
const KNOWN_DRY_RUN = ['client', 'server', 'none', 'true', 'false'];
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const LABEL_NAME = /^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_CHARS = 'letters, digits, "-", "_" or ".", starting and ending with a letter or digit';

/** Reads `path` (relative to `cwd`) and parses it; a missing or unreadable file is a WATCHES_NOT_FOUND ConfigError. */
export function loadWatches(path: string, options: LoadWatchesOptions): LoadedWatches {
  const absPath = resolve(options.cwd, path);
  let text: string;
  try {
    text = (options.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(absPath);
  } catch (err) {
    const where = absPath === path ? path : `${path} (${absPath})`;
    throw new ConfigError(
      `cannot read the watches file ${where}: ${fsProblem(err)}; create it, or pass its path with --watches-file (default ./watches.yaml)`,
      { code: 'WATCHES_NOT_FOUND', cause: err },
    );
  }
  return parseWatches(text, { ...options, file: path });
}

/** Parses watches.yaml text. Throws one WATCHES_INVALID ConfigError that lists every problem, one per line. */
export function parseWatches(text: string, options: ParseWatchesOptions): LoadedWatches {
  const { file } = options;
  const lines = new LineCounter();
  const lineOf = (node: unknown) => (isNode(node) && node.range ? lines.linePos(node.range[0]).line : undefined);
  const ctx: Context = { options, lineOf, errors: [], warnings: [], seen: new Map() };
  const duplicates = new Set<Scalar>();
  const docs = parseAllDocuments(text, {
    lineCounter: lines,
    prettyErrors: false,
    version: '1.1', // as go-yaml v2 under sigs.k8s.io/yaml: yes/no/on/off are booleans, 0777 is octal, <<: merges
    intAsBigInt: true, // keeps integers apart from floats, which Go turns into strings differently
    customTags: (tags: Tags) =>
      tags.filter((t) => typeof t === 'string' || (t.format !== 'TIME' && !t.tag.endsWith(':timestamp'))),
    uniqueKeys: (a: ParsedNode, b: ParsedNode) => {
      if (isScalar(a) && isScalar(b) && a.value === b.value) duplicates.add(b);
      return false; // Go keeps the last value: warn below instead of failing
    },
  });
  const doc = docs[0];
  for (const problem of [...(doc?.errors ?? []), ...(doc?.warnings ?? [])]) {
    const { line, col } = lines.linePos(problem.pos[0]);
    const message = problem.message.split('\n')[0];
    if (problem.name === 'YAMLWarning') ctx.warnings.push(`${file}:${line}:${col}: YAML: ${message}`);
    else ctx.errors.push(`${file}:${line}:${col}: YAML syntax error: ${message}; fix the YAML`);
  }
  for (const key of duplicates) {
    ctx.warnings.push(
      `${file}:${lineOf(key)}: key ${q(String(key.value))} appears twice in one mapping; the last one wins (as in operator-sdk); remove the other`,
    );
  }
  if (docs.slice(1).some((d) => d.contents !== null)) {
    ctx.warnings.push(`${file}: only the first of its ${docs.length} YAML documents is read (as in operator-sdk)`);
  }
  let root: unknown = null;
  try {
    if (ctx.errors.length === 0 && doc !== undefined) root = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    ctx.errors.push(`${file}: cannot read the YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const watches: Watch[] = [];
  if (ctx.errors.length > 0) return finish(ctx, watches);
  if (isSet(root) && !Array.isArray(root)) {
    ctx.errors.push(
      `${file}:${lineOf(doc?.contents) ?? 1}: the top level must be a list with one entry per kind ("- group: ..."), not ${describe(root)}; put "- " before the first key of each entry`,
    );
  } else if (!Array.isArray(root) || root.length === 0) {
    ctx.warnings.push(`${file}: has no entries, so the operator watches nothing; add one per kind ("- group: ...")`);
  } else {
    const nodes: unknown[] = isSeq(doc?.contents) ? doc.contents.items : [];
    root.forEach((raw: unknown, index) => {
      const watch = readEntry(raw, nodes[index], index, ctx);
      if (watch) watches.push(watch);
    });
  }
  return finish(ctx, watches);
}

function finish({ options, errors, warnings }: Context, watches: Watch[]): LoadedWatches {
  if (errors.length === 0) return { watches, warnings };
  const count = errors.length === 1 ? '1 problem' : `${errors.length} problems`;
  throw new ConfigError(`watches file ${options.file} is invalid (${count}):\n${errors.join('\n')}`, {
    code: 'WATCHES_INVALID',
  });
}

function readEntry(raw: unknown, node: unknown, index: number, ctx: Context): Watch | undefined {
  const line = ctx.lineOf(node);
  const place = `${ctx.options.file}${line ? `:${line}` : ''}: entry ${index + 1}`;
  if (!isRecord(raw)) {
    ctx.errors.push(`${place}: must be a mapping with group, version, kind and chart, not ${describe(raw)}`);
    return undefined;
  }
  const { fields, notes } = canonicalFields(raw, FIELDS, '');
  const text = (field: string) => yamlScalarToString(fields.get(field));
  const [group = '', version = '', kind = ''] = [text('group'), text('version'), text('kind')];
  const gvk = `${group}/${version}, Kind=${kind}`;
  const where = version && kind ? `${place} (${gvk})` : place;
  const errorCount = ctx.errors.length;
  const fail: Report = (message) => ctx.errors.push(`${where}: ${message}`);
  const warn: Report = (message) => ctx.warnings.push(`${where}: ${message}`);
  notes.forEach(warn);
  for (const field of ['group', 'version', 'kind', 'chart', 'dryRunOption']) {
    if (text(field) === undefined) fail(`${field}: must be a string, not ${describe(fields.get(field))}`);
  }

  if (group && !DNS_SUBDOMAIN.test(group)) {
    fail(
      `group: ${q(group)} is not a valid API group; use a lowercase DNS subdomain such as "demo.example.com", or ""`,
    );
  }
  if (text('version') === '') fail('version: missing; set the API version of the custom resource, e.g. "v1alpha1"');
  else if (version && !DNS_LABEL.test(version)) {
    fail(`version: ${q(version)} is not a valid API version; use lowercase letters, digits and "-", e.g. "v1alpha1"`);
  }
  if (text('kind') === '') fail('kind: missing; set the kind of the custom resource, e.g. "Nginx"');
  else if (kind && !KIND.test(kind)) {
    const guess = /^[a-z][A-Za-z0-9]*$/.test(kind) ? `, e.g. ${q(kind.charAt(0).toUpperCase() + kind.slice(1))}` : '';
    fail(
      `kind: ${q(kind)} is not a valid kind; start it with an uppercase letter and use only letters and digits${guess}`,
    );
  }
  const first = ctx.seen.get(gvk);
  if (first !== undefined) fail(`group/version/kind: duplicate GVK, ${first} already watches ${gvk}; keep one entry`);
  else if (version && kind) ctx.seen.set(gvk, `entry ${index + 1}${line ? ` on line ${line}` : ''}`);

  const { cwd } = ctx.options;
  const chartText = text('chart');
  const chart = chartText ? resolve(cwd, chartText) : '';
  const problem = chartText ? (ctx.options.checkChartDir ?? checkChartDir)(chart) : undefined;
  const cwdHint = `relative paths resolve against the working directory ${cwd}, not the watches file`;
  if (chartText === '') fail(`chart: missing; set it to the chart directory, e.g. "helm-charts/nginx" (${cwdHint})`);
  else if (problem !== undefined && chartText) {
    const shown = chart === chartText ? q(chart) : `${q(chartText)} (${chart})`;
    fail(`chart: ${shown} is not a Helm chart directory: ${problem}; point it at an unpacked chart (${cwdHint})`);
  }

  const wdr = fields.get('watchDependentResources');
  if (isSet(wdr) && typeof wdr !== 'boolean') {
    const hint = typeof wdr === 'string' ? '; remove the quotes' : '';
    fail(`watchDependentResources: must be true or false, not ${describe(wdr)}${hint}`);
  }
  const overrideValues = readOverrides(fields.get('overrideValues'), node, ctx.options.env, fail, warn);
  const selector = isSet(fields.get('selector')) ? readSelector(fields.get('selector'), fail, warn) : undefined;

  let reconcilePeriodMs: number | undefined;
  const period = fields.get('reconcilePeriod');
  try {
    if (typeof period === 'string') reconcilePeriodMs = parseDuration(period) || undefined;
    else if (fields.has('reconcilePeriod')) {
      const unit = typeof period === 'bigint' || typeof period === 'number' ? `, e.g. "${period}s"` : '';
      fail(
        `reconcilePeriod: must be a duration string with a unit${unit}, not ${describe(period)} (as in operator-sdk)`,
      );
    }
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail(`reconcilePeriod: ${err.message}`);
  }

  const mcr = fields.get('maxConcurrentReconciles');
  const maxConcurrentReconciles =
    typeof mcr === 'bigint' && mcr > 0n && mcr <= Number.MAX_SAFE_INTEGER ? Number(mcr) : undefined;
  if (isSet(mcr) && maxConcurrentReconciles === undefined) {
    fail(`maxConcurrentReconciles: must be a positive integer such as 1 or 4, not ${describe(mcr)}`);
  }

  const dryRunOption = text('dryRunOption') || undefined;
  if (dryRunOption !== undefined && !KNOWN_DRY_RUN.includes(dryRunOption)) {
    warn(
      `dryRunOption: Helm does not know ${q(dryRunOption)} (${KNOWN_DRY_RUN.join(', ')}) and treats it as a client-side ` +
        'dry run, where lookup() sees no cluster; use "server" if the chart calls lookup()',
    );
  }

  if (ctx.errors.length > errorCount) return undefined;
  const watch: Watch = { group, version, kind, chart, watchDependentResources: wdr !== false, overrideValues };
  if (selector !== undefined) Object.assign(watch, { selector, labelSelector: labelSelectorString(selector) });
  if (reconcilePeriodMs !== undefined) watch.reconcilePeriodMs = reconcilePeriodMs;
  if (maxConcurrentReconciles !== undefined) watch.maxConcurrentReconciles = maxConcurrentReconciles;
  if (dryRunOption !== undefined) watch.dryRunOption = dryRunOption;
  return watch;
}

function readOverrides(raw: unknown, entryNode: unknown, env: Env, fail: Report, warn: Report): Record<string, string> {
  const out: Record<string, string> = {};
  if (isSet(raw) && !isRecord(raw))
    fail(`overrideValues: must be a mapping such as {image.tag: "1.2"}, not ${describe(raw)}`);
  if (!isRecord(raw)) return out;
  let ok = true;
  for (const [key, value] of Object.entries(raw)) {
    const text = yamlScalarToString(value);
    const source = scalarSource(entryNode, key);
    if (text !== undefined && typeof value !== 'string' && source !== undefined && source !== text) {
      warn(
        `overrideValues ${q(key)}: the unquoted YAML value ${source} becomes ${q(text)} (as in operator-sdk); quote it to keep the text`,
      );
    }
    try {
      if (text === undefined)
        throw new ConfigError(
          `overrideValues ${q(key)}: must be a single value, not ${describe(value)}; use dotted keys such as "image.tag" for nested values`,
        );
      Object.defineProperty(out, key, { value: expandOverrideValue(key, text, env), enumerable: true, writable: true });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      ok = false;
      fail(err.message);
    }
  }
  try {
    if (ok) parseOverrides(out); // fail at startup rather than at every reconcile, as operator-sdk would
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail(err.message);
  }
  return out;
}

/** The YAML text of `overrideValues[key]` in the entry's syntax tree, when it is written there as a scalar. */
function scalarSource(entryNode: unknown, key: string): string | undefined {
  const keyIs = (name: string) => (p: Pair) => isScalar(p.key) && String(p.key.value).toLowerCase() === name;
  const values = isMap(entryNode) ? entryNode.items.find(keyIs('overridevalues'))?.value : undefined;
  const pair = isMap(values) ? values.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
  return isScalar(pair?.value) ? pair.value.source : undefined;
}

function readSelector(raw: unknown, fail: Report, warn: Report): LabelSelector | undefined {
  if (!isRecord(raw)) {
    fail(`selector: must be a mapping with matchLabels and/or matchExpressions, not ${describe(raw)}`);
    return undefined;
  }
  const { fields, notes } = canonicalFields(raw, ['matchLabels', 'matchExpressions'], 'selector.');
  notes.forEach(warn);
  const selector: LabelSelector = {};
  const labels = fields.get('matchLabels');
  if (isSet(labels) && !isRecord(labels))
    fail(`selector.matchLabels: must be a mapping such as {app: nginx}, not ${describe(labels)}`);
  for (const [key, value] of Object.entries(isRecord(labels) ? labels : {})) {
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
  if (!isRecord(raw)) {
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

/** Matches keys to known fields case-insensitively, like Go's encoding/json; notes say what looks wrong. */
function canonicalFields(raw: Record<string, unknown>, known: readonly string[], path: string) {
  const fields = new Map<string, unknown>();
  const spelledAs = new Map<string, string>();
  const notes: string[] = [];
  const simple = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const [key, value] of Object.entries(raw)) {
    const canonical = known.find((k) => k.toLowerCase() === key.toLowerCase());
    const guess = known.find(
      (k) => simple(key).length > 3 && (simple(k).startsWith(simple(key)) || simple(key).startsWith(simple(k))),
    );
    const previous = canonical && spelledAs.get(canonical);
    if (!canonical) {
      const fix = guess ? `did you mean ${q(path + guess)}?` : 'remove it or fix its spelling';
      notes.push(`unknown key ${q(path + key)} is ignored (operator-sdk silently ignores it); ${fix}`);
      continue;
    }
    if (key !== canonical)
      notes.push(
        `key ${q(path + key)} is read as ${q(path + canonical)} (keys are case-insensitive, as in operator-sdk); write ${q(canonical)}`,
      );
    if (previous)
      notes.push(
        `${q(path + previous)} and ${q(path + key)} set the same field; the last one wins, as in operator-sdk`,
      );
    spelledAs.set(canonical, key);
    fields.set(canonical, value);
  }
  return { fields, notes };
}

/** Helm's chartutil.IsChartDir on the real filesystem: why `dir` is not an unpacked chart, or undefined. */
export function checkChartDir(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) {
      return /\.(tgz|tar\.gz)$/.test(dir)
        ? 'it is a packed chart; unpack it (tar xzf) and point at the directory'
        : 'it is a file, not a directory';
    }
  } catch (err) {
    return fsProblem(err);
  }
  let meta: unknown;
  try {
    meta = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8'));
  } catch (err) {
    return isRecord(err) && err.code === 'ENOENT'
      ? 'it has no Chart.yaml'
      : `its Chart.yaml cannot be read: ${fsProblem(err)}`;
  }
  return isRecord(meta) && yamlScalarToString(meta.name) ? undefined : 'its Chart.yaml has no "name"';
}

function fsProblem(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${q(value)}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${yamlScalarToString(value)}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  return isSet(value) ? 'a mapping' : 'null';
}

function q(text: string): string {
  return JSON.stringify(text);
}

/** The `name` in a chart directory's Chart.yaml (the directory was validated by loadWatches). */
export function chartName(dir: string): string {
  const meta: unknown = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8'));
  const name = isRecord(meta) ? yamlScalarToString(meta.name) : undefined;
  if (!name) throw new ConfigError(`${join(dir, 'Chart.yaml')} has no "name"`);
  return name;
}
