// Reads and validates watches.yaml (operator-sdk helm-operator format) into Watch objects: defaults applied, overrides
// env-expanded, charts resolved against the working directory, selectors rendered as label-selector strings. Called
// at startup by the CLI (the operator and `cleanup`) and by the scaffold's RBAC generator. Reports every problem of
// the file in one ConfigError; never touches the cluster, never reads process.env or process.cwd() (both passed in).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import { parseHelmTimeout } from '../helm/timeout.js';
import { checkChartDir, fsProblem } from './chart-dir.js';
import { canonicalFields, describe, durationField, isMapping, isSet, q, type Report } from './fields.js';
import { DNS_SUBDOMAIN, type LabelSelector, labelSelectorString, readSelector } from './label-selector.js';
import { readOverrides } from './override-values.js';
import type { Env } from './overrides.js';
import {
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  type ParsedNode,
  parseAllDocuments,
  type Scalar,
  type Tags,
} from './yaml.js';
import { yamlScalarToString } from './yaml-scalar.js';

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
  /** Not an operator-sdk field: helm's `--timeout` for this kind's releases; absent means helm's default (5m). */
  helmTimeoutMs?: number;
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
  ...['reconcilePeriod', 'maxConcurrentReconciles', 'dryRunOption', 'helmTimeout'],
];
/** This operator's own keys, which operator-sdk's helm-operator silently ignores: what happens there instead. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  maxConcurrentReconciles: 'every kind gets --max-concurrent-reconciles workers',
  helmTimeout: 'helm keeps its default --timeout of 5m for hooks and waits',
};
const KNOWN_DRY_RUN = ['client', 'server', 'none', 'true', 'false'];
const DNS_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;

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
  if (!isMapping(raw)) {
    ctx.errors.push(`${place}: must be a mapping with group, version, kind and chart, not ${describe(raw)}`);
    return undefined;
  }
  const { fields, notes, misspelt } = canonicalFields(raw, FIELDS, '');
  // A missing field's hint when a key of the entry looks misspelt from it (operator-sdk ignores that key).
  const meant = (f: string) =>
    misspelt.has(f) ? `; the entry has ${q(misspelt.get(f) ?? '')}: did you mean ${q(f)}?` : '';
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
  if (text('version') === '') {
    fail(`version: missing; set the API version of the custom resource, e.g. "v1alpha1"${meant('version')}`);
  } else if (version && !DNS_LABEL.test(version)) {
    fail(`version: ${q(version)} is not a valid API version; use lowercase letters, digits and "-", e.g. "v1alpha1"`);
  }
  if (text('kind') === '') fail(`kind: missing; set the kind of the custom resource, e.g. "Nginx"${meant('kind')}`);
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
  if (chartText === '') {
    fail(`chart: missing; set it to the chart directory, e.g. "helm-charts/nginx" (${cwdHint})${meant('chart')}`);
  } else if (problem !== undefined && chartText) {
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

  const reconcilePeriodMs = durationField(fields, 'reconcilePeriod', parseDuration, fail) || undefined;
  const helmTimeoutMs = durationField(fields, 'helmTimeout', parseHelmTimeout, fail);

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

  for (const [field, there] of Object.entries(EXTENSIONS)) {
    if (isSet(fields.get(field))) {
      warn(
        `${field}: operator-sdk's helm-operator ignores this key, so the project behaves differently there: ${there}`,
      );
    }
  }

  if (ctx.errors.length > errorCount) return undefined;
  const watch: Watch = { group, version, kind, chart, watchDependentResources: wdr !== false, overrideValues };
  if (selector !== undefined) Object.assign(watch, { selector, labelSelector: labelSelectorString(selector) });
  if (reconcilePeriodMs !== undefined) watch.reconcilePeriodMs = reconcilePeriodMs;
  if (maxConcurrentReconciles !== undefined) watch.maxConcurrentReconciles = maxConcurrentReconciles;
  if (dryRunOption !== undefined) watch.dryRunOption = dryRunOption;
  if (helmTimeoutMs !== undefined) watch.helmTimeoutMs = helmTimeoutMs;
  return watch;
}
