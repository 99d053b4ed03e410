// The Kubernetes version `create api` and `generate rbac` render charts for (`helm template --kube-version`):
// --kube-version, else the version of the cluster that answers (discovery `/version`), else DEFAULT_KUBE_VERSION;
// and the SCAFFOLD_CHART_RENDER error, which names a chart's kubeVersion constraint when that is what failed.
// Called by rbac/rbac.ts, api/api.ts and api/flags.ts. Pure but for asking the cluster's version through the discover
// dependency; an unreachable cluster means the default, never a failure.
import { ConfigError } from '../../core/errors.js';
import type { HelmCommandError } from '../../helm/errors.js';
import { ScaffoldError } from '../errors.js';
import type { DiscoverKind } from './rules.js';

/**
 * What charts are rendered for when neither --kube-version nor a cluster says otherwise (docs/user-guide.md, the
 * workflow: "create api").
 */
export const DEFAULT_KUBE_VERSION = 'v1.36.0';

/** The version handed to `helm template --kube-version`, and where it came from (for messages). */
export interface RenderVersion {
  readonly version: string;
  readonly source: 'flag' | 'cluster' | 'default';
}

const SEMVER_ISH = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)(\.(0|[1-9]\d*))?$/;

/** `--kube-version` checked and normalised to `vX.Y.Z`; a ConfigError naming the flag otherwise. */
export function parseKubeVersionFlag(text: string): string {
  const m = SEMVER_ISH.exec(text.trim());
  if (m === null) {
    throw new ConfigError(
      `--kube-version ${JSON.stringify(text)} is not a Kubernetes version: use e.g. ${DEFAULT_KUBE_VERSION} or 1.30`,
    );
  }
  return `v${m[1]}.${m[2]}.${m[4] ?? '0'}`;
}

/**
 * The flag when given, else the cluster's gitVersion (`v1.30.2-gke.1000`: helm keeps only the numbers), else the
 * default. A cluster version helm could not parse is ignored.
 */
export function renderVersion(flag?: string, cluster?: string): RenderVersion {
  if (flag !== undefined) return { version: flag, source: 'flag' };
  if (cluster !== undefined && /^v?\d+\.\d+/.test(cluster)) return { version: cluster, source: 'cluster' };
  return { version: DEFAULT_KUBE_VERSION, source: 'default' };
}

/** renderVersion with the cluster's version asked through `discover` (when there is a cluster and no flag). */
export async function resolveRenderVersion(
  flag: string | undefined,
  discover: DiscoverKind | undefined,
  signal: AbortSignal,
): Promise<RenderVersion> {
  if (flag !== undefined || discover?.serverVersion === undefined) return renderVersion(flag);
  const cluster = await discover.serverVersion(signal).catch(() => {
    signal.throwIfAborted();
    return undefined;
  });
  return renderVersion(undefined, cluster);
}

/** helm's `chart requires kubeVersion: <constraint> which is incompatible with Kubernetes <version>`, parsed. */
export function kubeVersionMismatch(
  stderr: string,
): { readonly required: string; readonly rendered: string } | undefined {
  const m = /chart requires kubeVersion: (.+?) which is incompatible with Kubernetes (\S+?)\.?(\s|$)/.exec(stderr);
  return m?.[1] === undefined || m[2] === undefined ? undefined : { required: m[1], rendered: m[2] };
}

const SOURCE: Readonly<Record<RenderVersion['source'], string>> = {
  flag: 'given by --kube-version',
  cluster: 'the version of the cluster KUBECONFIG points at',
  default: `the built-in default, as no cluster answered and --kube-version was not given`,
};

/**
 * The SCAFFOLD_CHART_RENDER error for a failed `helm template` of `chart`: a kubeVersion constraint the version does
 * not meet says so and how to choose another version; any other failure quotes helm and points at the values.
 */
/** Which values a failed rendering used: the chart's defaults, or a sample or values file (named, with its fix). */
export interface RenderedWith {
  /** e.g. `its default values`, `the spec of config/samples/x.yaml`. */
  readonly what: string;
  /** What to change, e.g. `give the chart default values that render (values.yaml)`. */
  readonly fix: string;
}

export const DEFAULT_VALUES: RenderedWith = {
  what: 'its default values',
  fix: 'give the chart default values that render (values.yaml)',
};

export function chartRenderError(
  chart: string,
  err: HelmCommandError,
  kube: RenderVersion,
  values: RenderedWith = DEFAULT_VALUES,
): ScaffoldError {
  const mismatch = kubeVersionMismatch(err.failure.stderr);
  if (mismatch !== undefined) {
    return new ScaffoldError(
      `cannot render ${chart}: the chart needs Kubernetes ${mismatch.required} (kubeVersion in its Chart.yaml), and ` +
        `it was rendered for Kubernetes ${mismatch.rendered} (${SOURCE[kube.source]}). Pass --kube-version=<a version ` +
        'the chart accepts>, or point KUBECONFIG at a cluster of such a version, and run again',
      'SCAFFOLD_CHART_RENDER',
      { cause: err },
    );
  }
  const said = helmSaid(err.failure.stderr, chart);
  return new ScaffoldError(
    `cannot render ${chart} with ${values.what} for Kubernetes ${kube.version} (helm template: ${said}): the ` +
      `RBAC rules are derived from that rendering; ${values.fix}, then run again`,
    'SCAFFOLD_CHART_RENDER',
    { cause: err },
  );
}

/**
 * What helm's stderr says, on one line, without helm's "Use --debug flag to render out invalid YAML" (a flag neither
 * create api nor generate rbac takes); for invalid YAML, the helm command that shows it is named instead.
 */
export function helmSaid(stderr: string, chart: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const said = lines
    .filter((l) => !/use --debug flag/i.test(l))
    .slice(-5)
    .join(' ')
    .replace(/\s*Use --debug flag to render out invalid YAML\.?/gi, '');
  return /YAML parse error|error converting YAML/.test(said)
    ? `${said} (helm template ${chart} --debug shows the rendered YAML)`
    : said;
}
