// The flags of `helm-operator init` (operator-sdk's names and plugin choices), the checks on the domain and project
// name, and the split of the `create api` flags that init passes on. Called by init.ts and src/cmd/tools.ts.
// Pure: reads nothing from the file system or the environment.
import { basename } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { parseScaffoldFlags } from '../flags.js';
import type { ScaffoldContext } from '../templates/context.js';

export interface InitOptions extends ScaffoldContext {
  /** The project directory: `init` writes into the directory it runs in. */
  readonly dir: string;
  /** Overwrite files whose content differs. */
  readonly force: boolean;
}
export const INIT_USAGE = `Usage: helm-operator init --domain=<domain> [flags] [create api flags]

Writes a new operator project into the current directory: PROJECT, watches.yaml, Dockerfile, Makefile, .gitignore,
.dockerignore, charts/ and the config/ kustomize tree. Then add kinds with "helm-operator create api", or, as
operator-sdk does, give create api's flags (--helm-chart, --group, --version, --kind, …) to init to add the first
kind in the same step.

Flags:
  --domain string           domain of the API groups: kinds get <group>.<domain> (required, e.g. example.com)
  --project-name string     name prefix and namespace (<name>-system) of the deployment (default: the directory name)
  --plugins string          operator-sdk's plugin choice: only helm (helm.sdk.operatorframework.io/v1) is supported
  --project-version string  operator-sdk's PROJECT version: only 3
  --force                   overwrite existing files
  --helm-chart, --helm-chart-repo, --helm-chart-version, --group, --version, --kind, --plural, --kube-version,
  --values, --values-from   create the first API too: see helm-operator create api --help
`;

/** The `create api` flags `init` passes on (operator-sdk's init takes the chart and the kind in one step). */
const API_FLAGS = new Set([
  'helm-chart',
  'helm-chart-repo',
  'helm-chart-version',
  'group',
  'version',
  'kind',
  'plural',
  'kube-version',
  'crd-version',
  'values',
]);
const API_SWITCHES = new Set(['values-from']);

/**
 * Splits init's arguments into its own and those of the `create api` it runs after (none: no API). `--force` and
 * `--helm-binary` go to both. Pure; the flags themselves are checked by each command's parser.
 */
export function splitInitArgs(argv: readonly string[]): { readonly init: string[]; readonly api: string[] } {
  const init: string[] = [];
  const api: string[] = [];
  let apiGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : '';
    if (API_FLAGS.has(name) || API_SWITCHES.has(name)) {
      apiGiven = true;
      api.push(arg);
      const next = argv[i + 1];
      if (API_FLAGS.has(name) && eq < 0 && next !== undefined && !next.startsWith('--')) api.push(argv[++i] ?? '');
      continue;
    }
    if (name === 'force') api.push(arg);
    init.push(arg);
  }
  return { init, api: apiGiven ? api : [] };
}

const STRING_FLAGS = ['domain', 'project-name', 'plugins', 'project-version'];
/** What operator-sdk's --plugins values for a Helm project look like. */
const HELM_PLUGINS = new Set([
  'helm',
  'helm/v1',
  'helm.sdk.operatorframework.io/v1',
  'base.helm.sdk.operatorframework.io/v1',
]);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses the arguments after `init`; `cwd` is the project directory and gives the default project name. */
export function parseInitArgs(argv: readonly string[], cwd: string): InitOptions {
  const { values, force } = parseScaffoldFlags(
    'init',
    argv,
    STRING_FLAGS,
    '--domain, --project-name, --plugins, --project-version and --force',
  );
  checkPlugins(values.get('plugins'), values.get('project-version'));
  const options: InitOptions = {
    dir: cwd,
    domain: values.get('domain') ?? '',
    projectName: values.get('project-name') ?? basename(cwd).toLowerCase(),
    force,
  };
  checkOptions(options, values.has('project-name'));
  return options;
}

/** operator-sdk habits: `--plugins=helm` is what this tool does anyway; any other plugin cannot be scaffolded here. */
function checkPlugins(plugins: string | undefined, projectVersion: string | undefined): void {
  const other = (plugins ?? 'helm')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '' && !HELM_PLUGINS.has(p));
  if (other.length > 0) {
    throw new ConfigError(
      `--plugins ${JSON.stringify(plugins)}: helm-operator scaffolds Helm-based operators only; use --plugins=helm ` +
        `(or leave it out), or operator-sdk itself for ${other.join(', ')}`,
    );
  }
  if (projectVersion !== undefined && projectVersion !== '3') {
    throw new ConfigError(`--project-version ${JSON.stringify(projectVersion)}: only PROJECT version 3 is supported`);
  }
}

/** Throws a ConfigError naming the flag when an option would produce an unusable project. */
export function checkOptions(o: InitOptions, nameFromFlag: boolean): void {
  if (o.domain === '') {
    throw new ConfigError(
      '--domain is required: the API groups of your kinds will be <group>.<domain>; e.g. helm-operator init --domain=example.com',
    );
  }
  if (o.domain.length > 253 || !DNS_SUBDOMAIN.test(o.domain)) {
    throw new ConfigError(
      `--domain ${JSON.stringify(o.domain)} is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')`,
    );
  }
  const problem =
    o.projectName.length > 63
      ? 'must be no more than 63 characters'
      : DNS_LABEL.test(o.projectName)
        ? undefined
        : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
  if (problem) {
    const fix = nameFromFlag
      ? 'pass a valid --project-name'
      : 'pass --project-name (it defaults to the directory name)';
    throw new ConfigError(`project name (${o.projectName}) is invalid: ${problem}; ${fix}`);
  }
}
