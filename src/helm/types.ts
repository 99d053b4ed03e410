// The shapes helm/ hands out: the one Release (from helm's `--output json` and from a decoded release Secret), the
// helm version, and the client interfaces with their call parameters. Types only; imported by every module of
// helm/ and by their callers, so that no two helm/ modules need to import each other for a type.

/** Every status Helm gives a release (`release.Status` in Helm's pkg/release). */
export type ReleaseStatus =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

export interface ReleaseInfo {
  readonly status: ReleaseStatus;
  readonly description?: string;
  readonly notes?: string;
  /** RFC 3339 timestamps exactly as Helm wrote them (decoded Secrets only). */
  readonly firstDeployed?: string;
  readonly lastDeployed?: string;
}

export interface ReleaseChart {
  readonly name: string;
  readonly version: string;
  readonly appVersion?: string;
}

/**
 * One revision of a Helm release, as helm's `--output json` prints it (install, upgrade) or as its release Secret
 * decodes (releaseFromSecret). Only a decoded Secret carries `config`; helm's output is read without it.
 */
export interface Release {
  readonly name: string;
  /** Empty when Helm did not record one (it always does since v3.0). */
  readonly namespace: string;
  /** The revision, starting at 1. */
  readonly version: number;
  readonly info: ReleaseInfo;
  readonly chart: ReleaseChart;
  /** The user-supplied values (`helm --values`/`--set`), `{}` when none. May hold secrets: never log it. */
  readonly config?: Record<string, unknown>;
  /** The rendered manifest, `''` when empty. */
  readonly manifest: string;
  /** How helm 4 applied it: `ssa` (server-side apply) or `csa` (client-side, as helm 3); absent from helm 3. */
  readonly applyMethod?: string;
  /** The events its hooks run on (`pre-delete`, `post-install`, …), each once; absent when it has no hooks. */
  readonly hookEvents?: readonly string[];
}

/** A field the API server warned it does not know (and dropped), and the release objects that hold it. */
export interface UnknownField {
  /** The path as the server printed it, e.g. `spec.ports[0].foo`. */
  readonly field: string;
  /** `Kind/name` (or `Kind/namespace/name`) of each object of the manifest that holds the field; may be empty. */
  readonly objects: readonly string[];
}

/** What install and upgrade return: the new revision and what the API server warned about while applying it. */
export interface AppliedRelease extends Release {
  /** Present only when helm's stderr reported unknown fields. */
  readonly unknownFields?: readonly UnknownField[];
}

export interface HelmVersion {
  /** The version as helm printed it, e.g. `v3.22.0+gabc1234`. */
  readonly version: string;
  readonly major: number;
  readonly minor: number;
}

/** The values given to a chart: the custom resource's spec. Serialized as JSON, which is valid YAML. */
export type HelmValues = Readonly<Record<string, unknown>>;

/** A post-renderer executable and its leading arguments (each install/upgrade appends its own). */
export interface PostRenderer {
  readonly command: string;
  readonly args: readonly string[];
}

export interface HelmCallOptions {
  /** Aborting sends SIGTERM to helm (SIGKILL after `killGraceMs`); the call rejects once helm has exited. */
  readonly signal: AbortSignal;
}

export interface ReleaseParams extends HelmCallOptions {
  readonly release: string;
  readonly namespace: string;
  readonly disableHooks?: boolean;
  /**
   * helm's `--timeout` for hooks and waits; the process is stopped HELM_TIMEOUT_MARGIN_MS (30 s) after it, so that
   * helm reports its own timeout. @default none: helm's own 5m, and the client's `timeoutMs`
   */
  readonly timeoutMs?: number;
  /**
   * Strings hidden in helm's output (errors, warnings) whatever their length, beside those secretsOf() finds in the
   * values: values read from Secrets (values-from). @default none
   */
  readonly secrets?: readonly string[];
  /**
   * Names never hidden from helm's output even when a value equals one (the chart's; the release and its namespace
   * are always among them), beside the names of the objects of the release. @default none
   */
  readonly names?: readonly string[];
}

export interface InstallParams extends ReleaseParams {
  readonly chart: string;
  readonly values: HelmValues;
  /** Labels stored on the release record (`--labels`). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly extraArgs?: readonly string[];
  /** Appended to the client's post-renderer arguments (ignored without a post-renderer). */
  readonly postRenderArgs?: readonly string[];
  /** helm 4: apply as helm 3 does (`--server-side=false`, no `--force-conflicts`); ignored by helm 3. */
  readonly clientSideApply?: boolean;
}

export interface UpgradeParams extends ReleaseParams {
  readonly chart: string;
  readonly values: HelmValues;
  /** Labels stored on the new release record (`--labels`). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly force?: boolean;
  readonly dryRun?: false | 'client' | 'server';
  /** Appended to the client's post-renderer arguments (ignored without a post-renderer). */
  readonly postRenderArgs?: readonly string[];
  /** helm 4: apply as helm 3 does (`--server-side=false`, no `--force-conflicts`); ignored by helm 3. */
  readonly clientSideApply?: boolean;
}

/**
 * A dry-run upgrade, as operator-sdk decides whether a release needs one: the chart rendered with these values
 * against the release's history (`.Release.IsUpgrade`, the next revision, the cluster's capabilities), without the
 * post-renderer and without writing anything. Its manifest is helm's plain rendering.
 */
export interface DryRunUpgradeParams extends ReleaseParams {
  readonly chart: string;
  readonly values: HelmValues;
  /** `'server'` lets `lookup()` read the cluster (watches.yaml `dryRunOption: server`). @default 'client' */
  readonly dryRun?: 'client' | 'server';
}

export interface UninstallParams extends ReleaseParams {
  readonly wait?: boolean;
  /**
   * More releases of the same namespace, uninstalled by the same helm process after `release`, in order (helm takes
   * several names). helm stops at the first that fails: the HelmCommandError then names that release and lists in
   * `failure.uninstalled` those gone before it; the rest were not touched. `--timeout` applies to each. @default none
   */
  readonly also?: readonly string[];
  /**
   * With `also`: called as helm reports each release uninstalled (`release "x" uninstalled`), `release` included,
   * while the process still works on the others; each name at most once. @default none
   */
  readonly onUninstalled?: (release: string) => void;
}

export interface RollbackParams extends ReleaseParams {
  /** @default the previous revision */
  readonly revision?: number;
  readonly force?: boolean;
  /** helm 4: apply as helm 3 does (`--server-side=false`, no `--force-conflicts`); ignored by helm 3. */
  readonly clientSideApply?: boolean;
}

/** What the reconciler (and `cleanup`) asks of helm. Install and upgrade return the new revision without `config`. */
export interface HelmClient {
  version(call: HelmCallOptions): Promise<HelmVersion>;
  install(params: InstallParams): Promise<AppliedRelease>;
  upgrade(params: UpgradeParams): Promise<AppliedRelease>;
  /** The release helm would make (next revision, status pending-upgrade, manifest); nothing is written. */
  dryRunUpgrade(params: DryRunUpgradeParams): Promise<Release>;
  uninstall(params: UninstallParams): Promise<void>;
  rollback(params: RollbackParams): Promise<void>;
}

export interface TemplateParams extends HelmCallOptions {
  /** A chart directory (or anything `helm template` accepts). */
  readonly chart: string;
  readonly release: string;
  readonly namespace: string;
  /** Also render the chart's `crds/` files (`--include-crds`). */
  readonly includeCrds?: boolean;
  /** Capabilities.KubeVersion (`--kube-version`, e.g. `v1.36.0`); helm's compiled-in default otherwise. */
  readonly kubeVersion?: string | undefined;
  /** Values files (`--values`), later ones winning; only the chart's defaults when absent. */
  readonly valuesFiles?: readonly string[] | undefined;
  /**
   * `--validate`: render against the cluster (its discovery, and helm's OpenAPI check unless the client turns it off
   * for installs), nothing written. @default false
   */
  readonly validate?: boolean;
  /** Run the client's post-renderer with these arguments, as an install would (ignored without one). */
  readonly postRenderArgs?: readonly string[];
}

export interface CreateParams extends HelmCallOptions {
  /** The chart's name: helm creates `<dir>/<name>/`. */
  readonly name: string;
  readonly dir: string;
}

export interface PullParams extends HelmCallOptions {
  /** `repo/chart`, `oci://…`, an http(s) URL, or a chart name in `repo`. */
  readonly chart: string;
  /** A version or constraint; the latest when absent. */
  readonly version?: string | undefined;
  /** A chart repository URL (`--repo`). */
  readonly repo?: string | undefined;
  /** Absolute directory the chart is unpacked into, as `<destDir>/<chart name>/`. */
  readonly destDir: string;
}

export interface DependencyBuildParams extends HelmCallOptions {
  readonly chartDir: string;
}

/** What the scaffolder (`create api`, `generate rbac`) asks of helm; no cluster is involved. */
export interface HelmChartClient {
  version(call: HelmCallOptions): Promise<HelmVersion>;
  /** The rendered manifest (`helm template` stdout): multi-document YAML with `# Source:` comments. */
  template(params: TemplateParams): Promise<string>;
  create(params: CreateParams): Promise<void>;
  pull(params: PullParams): Promise<void>;
  dependencyBuild(params: DependencyBuildParams): Promise<void>;
}

export type HelmCli = HelmClient & HelmChartClient;
