// `helm-operator init`: parses its flags and writes a new project (PROJECT, watches.yaml, Dockerfile, Makefile and
// the config/ kustomize tree); also reads and extends the PROJECT file for `create api`.
// Called by cmd/tools.ts and the create-api scaffolder (api.ts). Never overwrites a differing file without --force and
// never talks to a cluster.
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isMap, isSeq, parseDocument, YAMLSeq } from '../../config/yaml.js';
import { ConfigError } from '../../core/errors.js';
import { isRecord } from '../../core/guards.js';
import { VERSION } from '../../version.js';
import { ScaffoldError } from '../errors.js';
import { stringifyLike, writeFiles } from '../files.js';
import { parseScaffoldFlags } from '../flags.js';
import { METRICS_SERVICE, PATHS, type ScaffoldContext } from '../templates/context.js';
import { defaultFiles } from '../templates/default.js';
import { grafanaFiles } from '../templates/grafana.js';
import { makefile } from '../templates/makefile.js';
import { managerFiles } from '../templates/manager.js';
import { networkPolicyFiles } from '../templates/network-policy.js';
import { LAYOUT, LEGACY_LAYOUT, projectFiles } from '../templates/project.js';
import { prometheusFiles } from '../templates/prometheus.js';
import { rbacFiles } from '../templates/rbac.js';
import { shardingFiles } from '../templates/sharding.js';

export interface InitOptions extends ScaffoldContext {
  /** The project directory: `init` writes into the directory it runs in. */
  readonly dir: string;
  /** Overwrite files whose content differs. */
  readonly force: boolean;
}
export interface InitResult {
  /** Project-relative paths created or overwritten. */
  readonly written: string[];
  /** Paths that already had exactly the scaffolded content. */
  readonly skipped: string[];
  /** Problems the generated manifests will have (a project name too long for a Service name, say). */
  readonly warnings: string[];
}

export const INIT_USAGE = `Usage: helm-operator init --domain=<domain> [flags]

Writes a new operator project into the current directory: PROJECT, watches.yaml, Dockerfile, Makefile, .gitignore,
.dockerignore, charts/ and the config/ kustomize tree. Then add kinds with "helm-operator create api".

Flags:
  --domain string           domain of the API groups: kinds get <group>.<domain> (required, e.g. example.com)
  --project-name string     name prefix and namespace (<name>-system) of the deployment (default: the directory name)
  --operator-image string   helm-operator-ts base image of the Dockerfile (default "helm-operator-ts:${VERSION}")
  --plugins string          operator-sdk's plugin choice: only helm (helm.sdk.operatorframework.io/v1) is supported
  --project-version string  operator-sdk's PROJECT version: only 3
  --force                   overwrite existing files
`;

const STRING_FLAGS = ['domain', 'project-name', 'operator-image', 'plugins', 'project-version'];
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
    '--domain, --project-name, --operator-image, --plugins, --project-version and --force',
  );
  checkPlugins(values.get('plugins'), values.get('project-version'));
  const options: InitOptions = {
    dir: cwd,
    domain: values.get('domain') ?? '',
    projectName: values.get('project-name') ?? basename(cwd).toLowerCase(),
    operatorImage: values.get('operator-image') ?? `helm-operator-ts:${VERSION}`,
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
function checkOptions(o: InitOptions, nameFromFlag: boolean): void {
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
  if (o.operatorImage === '' || /[\s"'`$\\]/.test(o.operatorImage)) {
    throw new ConfigError(
      `--operator-image ${JSON.stringify(o.operatorImage)} is not an image reference (e.g. registry.example.com/helm-operator-ts:${VERSION})`,
    );
  }
}

/** Writes the project files into `opts.dir` (see INIT_USAGE). Nothing is written when a conflict is found. */
export async function runInit(opts: InitOptions, signal: AbortSignal): Promise<InitResult> {
  checkOptions(opts, true);
  const ctx: ScaffoldContext = {
    domain: opts.domain,
    projectName: opts.projectName,
    operatorImage: opts.operatorImage,
  };
  const files = {
    ...projectFiles(ctx),
    [PATHS.makefile]: makefile(ctx),
    ...managerFiles(ctx),
    ...rbacFiles(),
    ...defaultFiles(ctx),
    ...prometheusFiles(ctx),
    ...grafanaFiles(),
    ...networkPolicyFiles(),
    ...shardingFiles(ctx),
  };
  const { written, skipped } = await writeFiles(opts.dir, files, { force: opts.force, signal });
  return { written, skipped, warnings: nameWarnings(opts.projectName) };
}

/** operator-sdk accepts these names too, but `make deploy` then fails: say so up front. */
function nameWarnings(projectName: string): string[] {
  const service = `${projectName}-${METRICS_SERVICE}`;
  const warnings: string[] = [];
  if (service.length > 63) {
    warnings.push(
      `project name ${projectName} is too long: the metrics Service would be named ${service} (${service.length} characters, at most 63 allowed), so make deploy will fail; use a project name of at most ${62 - METRICS_SERVICE.length} characters (init --force --project-name=...)`,
    );
  }
  if (!/^[a-z]/.test(projectName)) {
    warnings.push(
      `project name ${projectName} starts with a digit: Service names must start with a letter, so make deploy will fail for ${service}; use a project name that starts with a letter`,
    );
  }
  return warnings;
}

export interface ProjectResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource's domain; its API group is <group>.<domain>. */
  readonly domain: string;
}
export interface ProjectInfo {
  readonly domain: string;
  readonly projectName: string;
  /** The plugin chain: `[helm.sdk.operatorframework.io/v1]`; earlier versions of this tool wrote a string. */
  readonly layout: readonly string[];
  readonly resources: ProjectResource[];
}

/** The layouts of the projects `create api` works in: operator-sdk's helm layout, and this tool's earlier one. */
export const PROJECT_LAYOUTS: readonly string[] = [LAYOUT, LEGACY_LAYOUT];

/**
 * Reads `<dir>/PROJECT`; a missing file, or a layout other than a helm operator's (a Go project's, say), is
 * SCAFFOLD_NO_PROJECT; a malformed file is SCAFFOLD_INVALID_FILE.
 */
export async function readProject(dir: string, signal?: AbortSignal): Promise<ProjectInfo> {
  return (await loadProject(dir, signal)).info;
}

/**
 * Appends `{domain, group, kind, version}` to PROJECT's resources (domain defaults to the project's), keeping the
 * file's comments. Returns false, changing nothing, when that group/version/kind is already listed.
 */
export async function addProjectResource(
  dir: string,
  r: Omit<ProjectResource, 'domain'> & { domain?: string },
  signal?: AbortSignal,
): Promise<boolean> {
  const { file, text, doc, info } = await loadProject(dir, signal);
  const domain = r.domain ?? info.domain;
  const same = (p: ProjectResource) =>
    p.group === r.group && p.version === r.version && p.kind === r.kind && p.domain === domain;
  const root: unknown = doc.contents;
  if (info.resources.some(same) || !isMap(root)) return false;
  const found: unknown = root.get('resources', true);
  const list = isSeq(found) ? found : new YAMLSeq(); // absent or null: loadProject rejects anything else
  if (list !== found) root.set('resources', list);
  list.items.push(doc.createNode({ domain, group: r.group, kind: r.kind, version: r.version }));
  list.flow = false;
  await writeFile(file, stringifyLike(doc, text), { encoding: 'utf8', signal });
  return true;
}

async function loadProject(dir: string, signal?: AbortSignal) {
  const { file, text } = await readProjectText(dir, signal);
  const doc = parseDocument(text);
  const invalid = (why: string) => new ScaffoldError(`${file}: ${why}; fix the file`, 'SCAFFOLD_INVALID_FILE');
  const error = doc.errors[0];
  if (error) throw invalid(`is not valid YAML (${error.message.split('\n')[0]})`);
  const root = doc.toJS() as unknown;
  if (!isRecord(root)) throw invalid('must be a mapping with domain, projectName and resources');
  const { domain, projectName, layout: rawLayout } = root;
  const resources = root.resources ?? [];
  if (typeof domain !== 'string' || domain === '') throw invalid('"domain" must be a non-empty string');
  if (typeof projectName !== 'string' || projectName === '') throw invalid('"projectName" must be a non-empty string');
  const layout = rawLayout === undefined || rawLayout === null ? [] : [rawLayout].flat();
  if (!layout.every((l): l is string => typeof l === 'string')) throw invalid('"layout" must be a list of strings');
  if (layout.length > 0 && !layout.some((l) => PROJECT_LAYOUTS.includes(l))) {
    throw new ScaffoldError(
      `${file}: layout ${layout.join(', ')} is not a Helm operator project's (${LAYOUT}): run helm-operator init in ` +
        'a new directory for a Helm-based operator',
      'SCAFFOLD_NO_PROJECT',
    );
  }
  if (!Array.isArray(resources)) throw invalid('"resources" must be a list');
  const info: ProjectInfo = {
    domain,
    projectName,
    layout,
    resources: resources.map((r: unknown, i) => {
      if (!isRecord(r)) throw invalid(`resources[${i}] must be a mapping with group, version and kind`);
      const [group, version, kind] = [r.group, r.version, r.kind];
      if (typeof group !== 'string' || typeof version !== 'string' || typeof kind !== 'string') {
        throw invalid(`resources[${i}] must have string group, version and kind`);
      }
      return { group, version, kind, domain: typeof r.domain === 'string' ? r.domain : domain };
    }),
  };
  return { file, text, doc, info };
}

async function readProjectText(dir: string, signal?: AbortSignal): Promise<{ file: string; text: string }> {
  const file = join(dir, PATHS.project);
  try {
    return { file, text: await readFile(file, { encoding: 'utf8', signal }) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new ScaffoldError(
      `no ${PATHS.project} file in ${dir}: run helm-operator init there first`,
      'SCAFFOLD_NO_PROJECT',
      { cause: err },
    );
  }
}
