// Builds helm's argv, one pure function per command (install, upgrade, uninstall, rollback, version; template,
// create, pull and dependency build for the scaffolder). Called by the CLI adapter (cli.ts) and env.ts; never touches
// files, processes or process.env, and never puts values on argv (they travel in a file named by `valuesFile`).
import { formatDuration } from '../core/duration.js';

export interface ReleaseRef {
  readonly release: string;
  readonly namespace: string;
}

/** What install, upgrade, uninstall and rollback share: helm's `--timeout` for hooks and waits. */
export interface TimedArgs extends ReleaseRef {
  /** `--timeout` in ms (a Go duration on argv). @default none: helm's own 5m */
  readonly timeoutMs?: number;
}

export interface InstallArgs extends TimedArgs {
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
  /** `--disable-openapi-validation`: skip helm's client-side OpenAPI check (the API server validates anyway). */
  readonly disableOpenApiValidation?: boolean;
  /** helm 4: `--server-side=false`, client-side apply as helm 3 does. */
  readonly clientSideApply?: boolean;
}

/** `--post-renderer`: an executable path (helm 3) or a postrenderer/v1 plugin name (helm 4), and its arguments. */
export interface PostRenderArgs {
  readonly renderer: string;
  readonly args: readonly string[];
}

export interface UpgradeArgs extends TimedArgs {
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
  /** `--disable-openapi-validation`: skip helm's client-side OpenAPI check (the API server validates anyway). */
  readonly disableOpenApiValidation?: boolean;
  /** helm 4: `--server-side=false`, client-side apply as helm 3 does. */
  readonly clientSideApply?: boolean;
}

export interface UninstallArgs extends TimedArgs {
  readonly disableHooks?: boolean;
  readonly wait?: boolean;
  /** More releases of the namespace, uninstalled after `release` by the same process. */
  readonly also?: readonly string[];
}

export interface RollbackArgs extends TimedArgs {
  /** @default the previous revision (helm's own default) */
  readonly revision?: number;
  readonly historyMax: number;
  readonly force?: boolean;
  /** helm 4 server-side apply: take the fields back from other managers (`--force-conflicts`). */
  readonly forceConflicts?: boolean;
  readonly disableHooks?: boolean;
  /** helm 4: `--server-side=false`, client-side apply as helm 3 does. */
  readonly clientSideApply?: boolean;
}

const flag = (on: boolean | undefined, name: string): string[] => (on === true ? [name] : []);

/** Release names, namespaces and charts are operands: one starting with `-` would be parsed as a flag. */
function operand(what: string, value: string): string {
  if (value === '' || value.startsWith('-'))
    throw new TypeError(`helm ${what} must be non-empty and not start with "-"`);
  return value;
}

export function nonNegativeInt(what: string, value: number): string {
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

/** `--timeout 1m30s`: helm reads it with Go's time.ParseDuration, which formatDuration's output satisfies. */
function timeoutArgs(p: TimedArgs): string[] {
  if (p.timeoutMs === undefined) return [];
  if (!(p.timeoutMs > 0 && Number.isFinite(p.timeoutMs))) throw new TypeError('helm timeoutMs must be above zero');
  return ['--timeout', formatDuration(p.timeoutMs)];
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
    ...timeoutArgs(p),
    ...flag(p.disableHooks, '--no-hooks'),
    ...flag(p.disableOpenApiValidation, '--disable-openapi-validation'),
    ...labelArgs(p.labels),
    ...postRenderArgs(p.postRender),
    ...serverSideArgs(p),
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
    ...timeoutArgs(p),
    ...flag(p.force, '--force'),
    ...flag(p.disableHooks, '--no-hooks'),
    ...flag(p.disableOpenApiValidation, '--disable-openapi-validation'),
    ...labelArgs(p.labels),
    ...postRenderArgs(p.postRender),
    // --force and --force-conflicts are mutually exclusive in helm 4; --force replaces objects anyway.
    ...serverSideArgs({ ...p, forceConflicts: p.forceConflicts === true && !p.force }),
    // Bare `--dry-run` means "client" on every supported helm (a bool before 3.13, a string defaulting to client since);
    // `--dry-run=client` would be rejected by 3.8–3.12.
    ...(p.dryRun === 'client' ? ['--dry-run'] : p.dryRun === 'server' ? ['--dry-run=server'] : []),
  ];
}

/** helm 4: `--server-side=false` (client-side apply), or `--force-conflicts`, which needs server-side apply. */
function serverSideArgs(p: { readonly clientSideApply?: boolean; readonly forceConflicts?: boolean }): string[] {
  if (p.clientSideApply === true) return ['--server-side=false'];
  return flag(p.forceConflicts, '--force-conflicts');
}

function postRenderArgs(p: PostRenderArgs | undefined): string[] {
  if (p === undefined) return [];
  return ['--post-renderer', p.renderer, ...p.args.flatMap((a) => ['--post-renderer-args', a])];
}

export function uninstallArgs(p: UninstallArgs): string[] {
  return [
    'uninstall',
    operand('release', p.release),
    ...(p.also ?? []).map((r) => operand('release', r)),
    ...common(p),
    ...timeoutArgs(p),
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
    ...timeoutArgs(p),
    ...flag(p.force, '--force'),
    ...flag(p.disableHooks, '--no-hooks'),
    // --force (replace) and --force-conflicts are mutually exclusive in helm 4.
    ...serverSideArgs({ ...p, forceConflicts: p.forceConflicts === true && !p.force }),
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
  /** Values files (`--values`), later ones winning; the chart's defaults alone when empty. */
  readonly valuesFiles?: readonly string[] | undefined;
  /** `--validate`: render against the cluster (its discovery, helm's OpenAPI check, no write) instead of offline. */
  readonly validate?: boolean;
  /** With `validate`: `--disable-openapi-validation`. */
  readonly disableOpenApiValidation?: boolean;
  readonly postRender?: PostRenderArgs;
}

/** `helm template`: renders the chart client-side with its default values and any values files; no cluster needed. */
export function templateArgs(p: TemplateArgs): string[] {
  return [
    'template',
    operand('release', p.release),
    operand('chart', p.chart),
    ...common(p),
    ...flag(p.includeCrds, '--include-crds'),
    ...(p.kubeVersion === undefined ? [] : [`--kube-version=${p.kubeVersion}`]),
    ...(p.valuesFiles ?? []).flatMap((f) => ['--values', operand('values file', f)]),
    ...flag(p.validate, '--validate'),
    ...flag(p.validate === true && p.disableOpenApiValidation, '--disable-openapi-validation'),
    ...postRenderArgs(p.postRender),
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
