// `helm-operator init`: writes a new project (PROJECT, watches.yaml, Dockerfile, Makefile and the config/ kustomize
// tree) from flags.ts's options; also reads and extends the PROJECT file for `create api`.
// Called by cmd/tools.ts and the create-api scaffolder (api.ts). Never overwrites a differing file without --force and
// never talks to a cluster.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, isSeq, parseDocument, YAMLSeq } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { ScaffoldError } from '../errors.js';
import { stringifyLike, writeFiles } from '../files.js';
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
import { checkOptions, type InitOptions } from './flags.js';

export interface InitResult {
  /** Project-relative paths created or overwritten. */
  readonly written: string[];
  /** Paths that already had exactly the scaffolded content. */
  readonly skipped: string[];
  /** Problems the generated manifests will have (a project name too long for a Service name, say). */
  readonly warnings: string[];
}

/** Writes the project files into `opts.dir` (see INIT_USAGE). Nothing is written when a conflict is found. */
export async function runInit(opts: InitOptions, signal: AbortSignal): Promise<InitResult> {
  checkOptions(opts, true);
  const ctx: ScaffoldContext = { domain: opts.domain, projectName: opts.projectName };
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
