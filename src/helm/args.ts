// Pure helpers for the helm CLI adapter: argv builders per helm command, the child environment, parsing of helm's
// output (version, release JSON) and the stderr tail (redaction is redact.ts). Called only by
// src/helm/cli.ts and tests. Never touches files, processes or process.env; never puts values on argv.

import { HelmOutputError, HelmVersionError } from './errors.js';
import type { HelmReleaseResult } from './types.js';

/** What the values file path is replaced with wherever argv is shown (errors, logs, metrics hooks). */
export const VALUES_PLACEHOLDER = '<values>';
/**
 * Oldest supported helm: 3.13 (`--labels` on install/upgrade, which carries the release fingerprint, and
 * `--dry-run=server`; since 3.8 `--wait` on uninstall; since 3.7 SIGTERM marks a release failed, not pending).
 */
export const MIN_HELM = { major: 3, minor: 13 } as const;

export interface ReleaseRef {
  readonly release: string;
  readonly namespace: string;
}

export interface InstallArgs extends ReleaseRef {
  readonly chart: string;
  readonly valuesFile: string;
  readonly disableHooks?: boolean;
  /** Stored on the release record (its Secret's labels); keys and values must be valid label syntax. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Appended verbatim after every flag built here. */
  readonly extraArgs?: readonly string[];
  readonly postRender?: PostRenderArgs;
  /** helm 4 server-side apply: take the chart's fields back from other managers (`--force-conflicts`). */
  readonly forceConflicts?: boolean;
}

/** `--post-renderer`: an executable path (helm 3) or a postrenderer/v1 plugin name (helm 4), and its arguments. */
export interface PostRenderArgs {
  readonly renderer: string;
  readonly args: readonly string[];
}

export interface UpgradeArgs extends ReleaseRef {
  readonly chart: string;
  readonly valuesFile: string;
  readonly historyMax: number;
  readonly force?: boolean;
  readonly disableHooks?: boolean;
  /** Stored on the new release record (merged with the previous revision's labels by helm). */
  readonly labels?: Readonly<Record<string, string>>;
  /** `'client'` renders without contacting the cluster; `'server'` (helm >= 3.13) validates against it. */
  readonly dryRun?: false | 'client' | 'server';
  readonly postRender?: PostRenderArgs;
  /** helm 4 server-side apply: take the chart's fields back from other managers (`--force-conflicts`). */
  readonly forceConflicts?: boolean;
}

export interface UninstallArgs extends ReleaseRef {
  readonly disableHooks?: boolean;
  readonly wait?: boolean;
}

export interface RollbackArgs extends ReleaseRef {
  /** @default the previous revision (helm's own default) */
  readonly revision?: number;
  readonly historyMax: number;
  readonly force?: boolean;
  readonly disableHooks?: boolean;
}

export interface HelmVersion {
  /** The version as helm printed it, e.g. `v3.22.0+gabc1234`. */
  readonly version: string;
  readonly major: number;
  readonly minor: number;
}

const flag = (on: boolean | undefined, name: string): string[] => (on === true ? [name] : []);

/** Release names, namespaces and charts are operands: one starting with `-` would be parsed as a flag. */
function operand(what: string, value: string): string {
  if (value === '' || value.startsWith('-'))
    throw new TypeError(`helm ${what} must be non-empty and not start with "-"`);
  return value;
}

function nonNegativeInt(what: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer`);
  return String(value);
}

const LABEL = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/** `--labels k=v,…`; helm splits on `,` and `=`, so both are refused in keys and values. */
function labelArgs(labels: Readonly<Record<string, string>> | undefined): string[] {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return [];
  for (const [k, v] of entries) {
    if (!LABEL.test(k) || (v !== '' && !LABEL.test(v))) throw new TypeError(`invalid release label ${k}=${v}`);
  }
  return ['--labels', entries.map(([k, v]) => `${k}=${v}`).join(',')];
}

function common(ref: ReleaseRef): string[] {
  return ['--namespace', operand('namespace', ref.namespace)];
}

/** `helm install` has no `--history-max` flag; the limit reaches it through HELM_MAX_HISTORY (see helmEnv). */
export function installArgs(p: InstallArgs): string[] {
  return [
    'install',
    operand('release', p.release),
    operand('chart', p.chart),
    ...common(p),
    '--values',
    p.valuesFile,
    '--output',
    'json',
    ...flag(p.disableHooks, '--no-hooks'),
    ...labelArgs(p.labels),
    ...postRenderArgs(p.postRender),
    ...flag(p.forceConflicts, '--force-conflicts'),
    ...(p.extraArgs ?? []),
  ];
}

/**
 * `--reset-values`: the new release gets exactly the given values on top of the chart's defaults. Without it helm
 * silently reuses the previous release's values whenever the given values are empty.
 */
export function upgradeArgs(p: UpgradeArgs): string[] {
  return [
    'upgrade',
    operand('release', p.release),
    operand('chart', p.chart),
    ...common(p),
    '--values',
    p.valuesFile,
    '--reset-values',
    '--history-max',
    nonNegativeInt('historyMax', p.historyMax),
    '--output',
    'json',
    ...flag(p.force, '--force'),
    ...flag(p.disableHooks, '--no-hooks'),
    ...labelArgs(p.labels),
    ...postRenderArgs(p.postRender),
    // --force and --force-conflicts are mutually exclusive in helm 4; --force replaces objects anyway.
    ...flag(p.forceConflicts && !p.force, '--force-conflicts'),
    // Bare `--dry-run` means "client" on every supported helm (a bool before 3.13, a string defaulting to client since);
    // `--dry-run=client` would be rejected by 3.8–3.12.
    ...(p.dryRun === 'client' ? ['--dry-run'] : p.dryRun === 'server' ? ['--dry-run=server'] : []),
  ];
}

function postRenderArgs(p: PostRenderArgs | undefined): string[] {
  if (p === undefined) return [];
  return ['--post-renderer', p.renderer, ...p.args.flatMap((a) => ['--post-renderer-args', a])];
}

export function uninstallArgs(p: UninstallArgs): string[] {
  return [
    'uninstall',
    operand('release', p.release),
    ...common(p),
    ...flag(p.disableHooks, '--no-hooks'),
    ...flag(p.wait, '--wait'),
  ];
}

export function rollbackArgs(p: RollbackArgs): string[] {
  return [
    'rollback',
    operand('release', p.release),
    ...(p.revision === undefined ? [] : [nonNegativeInt('revision', p.revision)]),
    ...common(p),
    '--history-max',
    nonNegativeInt('historyMax', p.historyMax),
    ...flag(p.force, '--force'),
    ...flag(p.disableHooks, '--no-hooks'),
  ];
}

export function versionArgs(): string[] {
  return ['version', '--short'];
}

export interface TemplateArgs extends ReleaseRef {
  readonly chart: string;
  /** Also print the chart's `crds/` files (helm leaves them out of `helm template` by default). */
  readonly includeCrds?: boolean;
  /** Capabilities.KubeVersion (`--kube-version`); helm's compiled-in default otherwise. */
  readonly kubeVersion?: string | undefined;
}

/** `helm template`: renders the chart client-side with its default values; no cluster needed. */
export function templateArgs(p: TemplateArgs): string[] {
  return [
    'template',
    operand('release', p.release),
    operand('chart', p.chart),
    ...common(p),
    ...flag(p.includeCrds, '--include-crds'),
    ...(p.kubeVersion === undefined ? [] : [`--kube-version=${p.kubeVersion}`]),
  ];
}

/** `helm create <path>`: a new chart named after the last path segment. */
export function createArgs(p: { readonly path: string }): string[] {
  return ['create', operand('chart path', p.path)];
}

export interface PullArgs {
  /** `repo/chart`, `oci://…`, an http(s) URL, or a bare chart name with `repo`. */
  readonly chart: string;
  /** A version or constraint; latest when absent. */
  readonly version?: string | undefined;
  /** A chart repository URL (`--repo`); the chart is then a name in it. */
  readonly repo?: string | undefined;
  /** Absolute directory the chart is unpacked into (as `<untarDir>/<chart name>/`). */
  readonly untarDir: string;
}

/**
 * `helm pull --untar`: with --untar helm downloads the archive into a temporary directory of its own, and an absolute
 * `--untardir` is used as it is (`--destination` is not passed: helm would prefix it to the untar directory).
 * `--version=`/`--repo=` keep a value starting with `-` from being read as a flag.
 */
export function pullArgs(p: PullArgs): string[] {
  return [
    'pull',
    operand('chart', p.chart),
    '--untar',
    '--untardir',
    operand('untar directory', p.untarDir),
    ...(p.version === undefined ? [] : [`--version=${p.version}`]),
    ...(p.repo === undefined ? [] : [`--repo=${p.repo}`]),
  ];
}

/** `helm dependency build <chart>`: fetches the dependencies named in Chart.yaml (and Chart.lock) into charts/. */
export function dependencyBuildArgs(p: { readonly chartDir: string }): string[] {
  return ['dependency', 'build', operand('chart directory', p.chartDir)];
}

/** The password of `scheme://user:password@host/…` URLs among `args`, so that errors and logs can hide it. */
export function urlSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const match = /^(?:--[a-z-]+=)?[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:([^/@\s]+)@/i.exec(arg);
    if (match?.[1] !== undefined && match[1].length > 0) out.push(match[1]);
  }
  return out;
}

/** Variables that would silently retarget or reconfigure helm if inherited from the operator's environment. */
const STRIPPED_PREFIX = 'HELM_';
/** HELM_* variables an operator may legitimately tune for its helm children. */
const KEPT_HELM_VARS: ReadonlySet<string> = new Set(['HELM_BURST_LIMIT', 'HELM_QPS']);

export interface HelmEnvInput {
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly kubeconfig?: string | undefined;
  readonly cacheHome: string;
  readonly configHome: string;
  readonly dataHome: string;
  readonly kubeCacheDir: string;
  readonly historyMax: number;
}

/**
 * The complete environment of a helm child: `base` without undefined entries and without HELM_* variables (except
 * HELM_BURST_LIMIT/HELM_QPS), then the operator's own settings. Storage is pinned to Secrets (HELM_DRIVER=secret)
 * because release state is read from Secrets elsewhere.
 */
export function helmEnv(input: HelmEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) {
    if (value === undefined) continue;
    if (key.toUpperCase().startsWith(STRIPPED_PREFIX) && !KEPT_HELM_VARS.has(key)) continue;
    env[key] = value;
  }
  if (input.kubeconfig !== undefined) env.KUBECONFIG = input.kubeconfig;
  env.HELM_CACHE_HOME = input.cacheHome;
  env.HELM_CONFIG_HOME = input.configHome;
  env.HELM_DATA_HOME = input.dataHome;
  env.HELM_DRIVER = 'secret';
  env.HELM_MAX_HISTORY = nonNegativeInt('historyMax', input.historyMax);
  env.KUBECACHEDIR = input.kubeCacheDir;
  env.NO_COLOR = '1';
  return env;
}

export interface UserHelmEnvInput {
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly kubeconfig?: string | undefined;
}

/**
 * The environment of a helm child that scaffolds for a user (`create api`): `base` as it is, HELM_* variables
 * included, so that helm finds the user's repositories.yaml, registry logins, caches and plugins in their usual
 * homes. The opposite of helmEnv, which isolates the operator's helm from whatever the machine has configured.
 */
export function userHelmEnv(input: UserHelmEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) if (value !== undefined) env[key] = value;
  if (input.kubeconfig !== undefined) env.KUBECONFIG = input.kubeconfig;
  env.NO_COLOR = '1';
  return env;
}

/** Parses `helm version --short` output: `v3.22.0+gabc1234`, `v4.3.1`, or helm 2's `Client: v2.17.0+g…`. */
export function parseHelmVersion(output: string): HelmVersion {
  const match = /\bv?(\d+)\.(\d+)\.(\d+)\S*/.exec(output);
  if (match === null) {
    throw new HelmVersionError('unknown', 'cannot parse the output of `helm version --short`');
  }
  return { version: match[0], major: Number(match[1]), minor: Number(match[2]) };
}

/** Throws HelmVersionError unless `v` is at least MIN_HELM (helm 3.13); helm 4 is supported. */
export function checkHelmVersion(v: HelmVersion): void {
  if (v.major < MIN_HELM.major || (v.major === MIN_HELM.major && v.minor < MIN_HELM.minor)) {
    throw new HelmVersionError(
      v.version,
      `helm ${v.version} is too old: helm-operator needs helm >= ${MIN_HELM.major}.${MIN_HELM.minor} (v3 or v4)`,
    );
  }
}

/** `args` with every occurrence of the values file path replaced by VALUES_PLACEHOLDER. */
export function redactArgs(args: readonly string[], valuesFile: string | undefined): string[] {
  return args.map((a) => (valuesFile !== undefined && a === valuesFile ? VALUES_PLACEHOLDER : a));
}

/** The last `maxChars` characters of `text` (trimmed); a cut is marked by a leading `…` counted in `maxChars`. */
export function tail(text: string, maxChars: number): string {
  const trimmed = text.trim();
  return trimmed.length <= maxChars ? trimmed : `…${trimmed.slice(trimmed.length - maxChars + 1)}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

/** Reads helm's `--output json` release; errors describe the problem but never quote the output. */
export function parseRelease(
  stdout: string,
  command: string,
  ref: { readonly release: string; readonly namespace: string },
): HelmReleaseResult {
  const bad = (reason: string) => new HelmOutputError(command, `${ref.namespace}/${ref.release}`, reason);
  // helm prints only the JSON document on stdout; tolerate stray lines around it (plugins, wrappers).
  const start = stdout.indexOf('{');
  const end = stdout.lastIndexOf('}');
  if (start < 0 || end < start) throw bad('no JSON object on stdout');
  let raw: unknown;
  try {
    raw = JSON.parse(stdout.slice(start, end + 1));
  } catch {
    throw bad('stdout is not valid JSON'); // the parser's message quotes the input: not attached
  }
  if (!isRecord(raw)) throw bad('not a JSON object');
  const info = isRecord(raw.info) ? raw.info : {};
  const meta = isRecord(raw.chart) && isRecord(raw.chart.metadata) ? raw.chart.metadata : {};
  if (typeof raw.name !== 'string' || typeof raw.version !== 'number' || typeof info.status !== 'string') {
    throw bad('missing name, version or info.status');
  }
  const result: HelmReleaseResult = {
    name: raw.name,
    namespace: str(raw.namespace, ref.namespace),
    version: raw.version,
    info: typeof info.notes === 'string' ? { status: info.status, notes: info.notes } : { status: info.status },
    manifest: str(raw.manifest, ''),
    chart: { metadata: { name: str(meta.name, ''), version: str(meta.version, '') } },
  };
  return result;
}
