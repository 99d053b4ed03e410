// A chart's declared dependencies and the subcharts helm loads with it, as helm's loader reads them: requirements.yaml's
// list replaces Chart.yaml's when it is loaded, a subchart is a folder or a `.tgz` in charts/ named by its own
// Chart.yaml, and a dependency is missing when no loaded subchart has its name (helm's action.CheckDependencies).
// Called by chart-load.ts. Reads files only; throws ChartLoadError where helm's loader would fail.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { readTar } from '../core/tar.js';
import { ChartLoadError } from './chart-load-error.js';
import { isMapping } from './fields.js';
import { parse } from './yaml.js';
import { yamlScalarToString } from './yaml-scalar.js';

/** helm refuses a chart archive that decompresses to more than this (its MaxDecompressedChartSize). */
const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024;
const gunzipAsync = promisify(gunzip);

export type DependencyFile = 'Chart.yaml' | 'requirements.yaml';

export interface DeclaredDependency {
  readonly name: string;
  /** The version (range) it asks for, as written; '' when none. */
  readonly version: string;
  /** Where helm read it from. */
  readonly file: DependencyFile;
}

/** A YAML file of a chart as helm's loader decodes it (go-yaml: YAML 1.1, a repeated key's last value wins). */
export function parseChartYaml(text: string, file: string): unknown {
  try {
    return parse(text.replace(/^\uFEFF/, ''), { version: '1.1', uniqueKeys: false });
  } catch (err) {
    throw new ChartLoadError(`cannot load ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The dependencies helm's loader declares for the chart: Chart.yaml's `dependencies`, replaced by requirements.yaml's
 * when that file is loaded and has the key (helm decodes it over the same metadata).
 */
export function declaredDependencies(chartYaml: unknown, requirements?: unknown): DeclaredDependency[] {
  const fromRequirements = isMapping(requirements) && Object.hasOwn(requirements, 'dependencies');
  const file: DependencyFile = fromRequirements ? 'requirements.yaml' : 'Chart.yaml';
  const list = fromRequirements ? requirements.dependencies : isMapping(chartYaml) ? chartYaml.dependencies : [];
  if (!Array.isArray(list)) return [];
  return list.filter(isMapping).map((d) => ({
    name: yamlScalarToString(d.name) ?? '',
    version: yamlScalarToString(d.version) ?? '',
    file,
  }));
}

/** The declared dependencies that no loaded subchart is named after, in declaration order (CheckDependencies). */
export function missingDependencies(declared: readonly DeclaredDependency[], subcharts: readonly string[]) {
  return declared.filter((d) => !subcharts.includes(d.name));
}

/**
 * The names of the subcharts helm's LoadFiles makes of the loaded `files` under charts/: each `charts/<x>.tgz`
 * archive and each `charts/<x>/` folder, except those whose name starts with `_` or `.`; `.prov` files are not charts.
 */
export async function subchartNames(chartDir: string, files: readonly string[], signal: AbortSignal) {
  const groups = new Map<string, string[]>();
  for (const file of files) {
    if (!file.startsWith('charts/') || goExt(file) === '.prov') continue;
    const rest = file.slice('charts/'.length);
    const group = rest.split('/')[0] ?? rest;
    groups.set(group, [...(groups.get(group) ?? []), rest]);
  }
  const names: string[] = [];
  for (const [group, members] of groups) {
    signal.throwIfAborted();
    if (group.startsWith('_') || group.startsWith('.')) continue;
    if (goExt(group) === '.tgz') {
      if (members[0] !== group) throw new ChartLoadError(`charts/${group} is a folder, not a chart archive`);
      names.push(await archiveChartName(chartDir, `charts/${group}`, signal));
      continue;
    }
    if (!members.includes(`${group}/Chart.yaml`))
      throw new ChartLoadError(`subchart charts/${group} has no Chart.yaml`);
    const text = await readFile(join(chartDir, 'charts', group, 'Chart.yaml'), { encoding: 'utf8', signal });
    names.push(chartName(parseChartYaml(text, `charts/${group}/Chart.yaml`), `charts/${group}`));
  }
  return names;
}

/** The name in the Chart.yaml of chart archive `where` (`<top folder>/Chart.yaml`, the last one when repeated). */
async function archiveChartName(chartDir: string, where: string, signal: AbortSignal): Promise<string> {
  let tar: Buffer;
  try {
    tar = await gunzipAsync(await readFile(join(chartDir, where), { signal }), { maxOutputLength: MAX_ARCHIVE_BYTES });
  } catch (err) {
    signal.throwIfAborted();
    throw new ChartLoadError(`${where} cannot be unpacked: ${err instanceof Error ? err.message : String(err)}`);
  }
  const entries = readTar(tar, (reason) => new ChartLoadError(`${where}: ${reason}`));
  const meta = entries.filter((e) => e.type === 'file' && /^[^/]+\/Chart\.yaml$/.test(e.path)).at(-1);
  if (!meta) throw new ChartLoadError(`${where} holds no Chart.yaml`);
  return chartName(parseChartYaml(meta.data.toString('utf8'), `${where}: Chart.yaml`), where);
}

function chartName(meta: unknown, where: string): string {
  const name = isMapping(meta) ? yamlScalarToString(meta.name) : undefined;
  if (!name) throw new ChartLoadError(`the Chart.yaml of ${where} has no name`);
  return name;
}

/** Go's filepath.Ext: from the last dot of the last path segment, or ''. */
function goExt(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? path.slice(dot) : '';
}
