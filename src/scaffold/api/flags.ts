// The flags of `helm-operator create api` (operator-sdk's names, defaults and error texts) and the checks on the
// group, version and kind they produce. Called by api.ts and by the CLI (cmd/tools.ts).
// Pure: reads nothing from the file system or the environment.
import { ConfigError } from '../../core/errors.js';
import { parseScaffoldFlags } from '../flags.js';
import { DEFAULT_KUBE_VERSION, parseKubeVersionFlag } from '../rbac/kube-version.js';
import { parseValuesFlag, type ValuesFileFlag } from '../rbac/value-sets.js';

export interface CreateApiOptions {
  /** The project directory (where PROJECT is). */
  readonly projectDir: string;
  /** Short group (without the domain); defaults to `charts` with --helm-chart. */
  readonly group?: string | undefined;
  readonly version?: string | undefined;
  readonly kind?: string | undefined;
  /** `--plural`: the resource's plural name (default: the lowercase kind, pluralized as kubebuilder does). */
  readonly plural?: string | undefined;
  /** A chart directory, .tgz, `repo/chart`, `oci://…` or URL; absent: `helm create <lowercase kind>`. */
  readonly helmChart?: string | undefined;
  readonly helmChartRepo?: string | undefined;
  readonly helmChartVersion?: string | undefined;
  /** `--kube-version`, normalised to `vX.Y.Z`: the chart is rendered for it instead of the cluster's or the default. */
  readonly kubeVersion?: string | undefined;
  /** Scaffold even if the API exists, overwrite generated files and regenerate the whole manager role. */
  readonly force: boolean;
  /**
   * `--values-from`: the manager role may get, list and watch ConfigMaps and Secrets (the values-from annotation),
   * recorded in PROJECT so that `generate rbac` keeps it. @default false
   */
  readonly valuesFrom?: boolean;
  /** `--values`: more values files to render the chart with for the manager role's rules (besides its defaults). */
  readonly valuesFiles?: readonly ValuesFileFlag[] | undefined;
}

export const CREATE_API_USAGE = `Usage: helm-operator create api [flags]

Adds a kind to the project: imports (or creates) its Helm chart under charts/, maps it in watches.yaml, writes its
CRD (spec schema from the chart's values.schema.json when it has one), a sample CR with the chart's default values,
and the manager role's rules for everything the chart renders.

Flags:
  --group string                resource group (default "charts" with --helm-chart)
  --version string              resource version (default "v1alpha1" with --helm-chart)
  --kind string                 resource kind (default: the chart name in CamelCase)
  --plural string               resource plural name, e.g. "nginxes" (default: the lowercase kind, pluralized)
  --helm-chart string           the chart: a local directory or .tgz, <repo>/<chart>, oci://… or an http(s) URL
                                (default: a new chart made by "helm create <lowercase kind>")
  --helm-chart-repo string      chart repository URL where --helm-chart is looked up
  --helm-chart-version string   chart version or constraint (default: the latest)
  --kube-version string         the Kubernetes version the chart is rendered for ("helm template --kube-version";
                                default: the cluster's when one answers, else ${DEFAULT_KUBE_VERSION})
  --force                       scaffold even if the resource exists: overwrite generated files and regenerate
                                config/rbac/role.yaml from every chart in watches.yaml
  --values-from                 let the operator read (get, list, watch) ConfigMaps and Secrets, for CRs that take
                                chart values from them (the helm.sdk.operatorframework.io/values-from annotation);
                                recorded in PROJECT, so generate rbac keeps it
  --values string               values set over the chart's values.yaml for the sample CR (for a chart that
                                requires values), and one more rendering for the manager role's rules (for what
                                CRs will enable beyond the defaults, e.g. an ingress); repeatable
`;

const STRING_FLAGS = [
  'group',
  'version',
  'kind',
  'plural',
  'helm-chart',
  'helm-chart-repo',
  'helm-chart-version',
  'kube-version',
  'crd-version',
  'values',
];
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;

/** Parses the arguments after `create api`; `cwd` is the project directory. Errors are operator-sdk's texts. */
export function parseCreateApiArgs(argv: readonly string[], cwd: string): CreateApiOptions {
  const { values, force, switches, lists } = parseScaffoldFlags(
    'create api',
    argv,
    STRING_FLAGS,
    '--group, --version, --kind, --plural, --helm-chart, --helm-chart-repo, --helm-chart-version, --kube-version, ' +
      '--values-from, --values and --force',
    ['values-from'],
    ['values'],
  );
  const crdVersion = values.get('crd-version');
  if (crdVersion !== undefined && crdVersion !== 'v1') {
    throw new ConfigError(
      `--crd-version ${JSON.stringify(crdVersion)}: only v1 CRDs are supported (the flag is deprecated)`,
    );
  }
  const text = (name: string) => {
    const v = values.get(name)?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const opts: CreateApiOptions = {
    projectDir: cwd,
    group: text('group'),
    version: text('version'),
    kind: text('kind'),
    plural: text('plural'),
    helmChart: text('helm-chart'),
    helmChartRepo: text('helm-chart-repo'),
    helmChartVersion: text('helm-chart-version'),
    kubeVersion: values.has('kube-version') ? parseKubeVersionFlag(values.get('kube-version') ?? '') : undefined,
    force,
    ...(switches.get('values-from') ? { valuesFrom: true } : {}),
    ...(lists.has('values') ? { valuesFiles: (lists.get('values') ?? []).map((v) => parseValuesFlag(v, cwd)) } : {}),
  };
  checkChartFlags(opts);
  return opts;
}

/** operator-sdk's flag combination checks, in its order and with its messages. */
export function checkChartFlags(o: CreateApiOptions): void {
  if (o.helmChart === undefined) {
    if (o.helmChartRepo !== undefined)
      throw new ConfigError('value of --helm-chart-repo can only be used with --helm-chart');
    if (o.helmChartVersion !== undefined) {
      throw new ConfigError('value of --helm-chart-version can only be used with --helm-chart');
    }
    // Every missing flag at once, each with what it is for (operator-sdk's text for --kind first).
    const missing = [
      ...(o.kind === undefined ? ['either --kind or --helm-chart need to be provided'] : []),
      ...(o.group === undefined ? ['--group is required when --helm-chart is not given (e.g. --group=cache)'] : []),
      ...(o.version === undefined
        ? ['--version is required when --helm-chart is not given (e.g. --version=v1alpha1)']
        : []),
    ];
    if (missing.length > 0) throw new ConfigError(missing.join('; '));
  }
}

/** `nginx-ingress` → `NginxIngress`: what --kind defaults to with --helm-chart. */
export function camelCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Throws a ConfigError naming the flag when group, version or kind cannot make a CRD. */
export function checkGvk(gvk: { group: string; version: string; kind: string; plural: string; domain: string }): void {
  const qualified = `${gvk.group}.${gvk.domain}`;
  if (!DNS_SUBDOMAIN.test(gvk.group) || qualified.length > 253) {
    throw new ConfigError(
      `--group ${JSON.stringify(gvk.group)} is invalid: the API group ${qualified} must be a lowercase RFC 1123 ` +
        "subdomain (lower case alphanumeric characters, '-' or '.', starting and ending with an alphanumeric), e.g. cache",
    );
  }
  if (!VERSION.test(gvk.version)) {
    throw new ConfigError(
      `--version ${JSON.stringify(gvk.version)} is invalid: use a Kubernetes API version such as v1, v1alpha1 or v2beta3`,
    );
  }
  if (!KIND.test(gvk.kind)) {
    throw new ConfigError(
      `--kind ${JSON.stringify(gvk.kind)} is invalid: a kind is CamelCase, starts with an upper-case letter and holds ` +
        'only letters and digits, e.g. Memcached (with --helm-chart it defaults to the chart name in CamelCase)',
    );
  }
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(gvk.plural)) {
    throw new ConfigError(
      `--plural ${JSON.stringify(gvk.plural)} is invalid: a plural is a lowercase RFC 1123 label (lower case ` +
        "alphanumeric characters or '-', starting with a letter), e.g. nginxes",
    );
  }
  if (gvk.plural.length > 63 || `${gvk.plural}.${qualified}`.length > 253) {
    throw new ConfigError(`--kind ${gvk.kind} is too long: its plural ${gvk.plural} must be at most 63 characters`);
  }
}
