// Brings the chart of `create api` into the project's charts/: a local directory (copied), a local .tgz (unpacked),
// a `repo/chart`, `oci://`, URL or `--helm-chart-repo` chart (`helm pull` with the user's helm configuration), or a
// new `helm create` chart; and fetches missing dependencies. Called by api.ts and chart-place.ts (which copies the
// chart into the project). Never modifies the source chart.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parse } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import type { HelmChartClient } from '../../helm/types.js';
import { ScaffoldError } from '../errors.js';
import { archiveRoot, extractTgz } from '../tar.js';

/** A dependency as Chart.yaml (apiVersion v2) or requirements.yaml (v1) declares it. */
export interface ChartDependency {
  readonly name: string;
  readonly version?: string;
  readonly repository?: string;
}

export interface ChartMeta {
  readonly name: string;
  readonly version: string | undefined;
  readonly dependencies: readonly ChartDependency[];
}

/** Where `--helm-chart` points. */
export type ChartSource =
  | { readonly type: 'dir'; readonly path: string }
  | { readonly type: 'archive'; readonly path: string }
  | { readonly type: 'remote'; readonly chart: string; readonly repo?: string; readonly version?: string };

/** A chart unpacked and readable, not yet in the project. */
export interface StagedChart {
  readonly dir: string;
  readonly meta: ChartMeta;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Reads `<dir>/Chart.yaml`: the chart's name (which names its charts/ directory), version and dependencies. */
export async function readChartMeta(dir: string): Promise<ChartMeta> {
  const file = join(dir, 'Chart.yaml');
  let doc: unknown;
  try {
    doc = parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ScaffoldError(`cannot read chart ${file}: ${(err as Error).message}`, 'SCAFFOLD_CHART_INVALID', {
      cause: err,
    });
  }
  const name = isRecord(doc) ? doc.name : undefined;
  if (typeof name !== 'string' || !SAFE_NAME.test(name) || name.includes('..')) {
    throw new ScaffoldError(
      `chart ${file} has no usable name: Chart.yaml must set name to letters, digits, ".", "_" or "-"`,
      'SCAFFOLD_CHART_INVALID',
    );
  }
  const version = isRecord(doc) && typeof doc.version === 'string' ? doc.version : undefined;
  let deps = isRecord(doc) ? doc.dependencies : undefined;
  if (deps === undefined) deps = await readRequirements(dir);
  return { name, version, dependencies: Array.isArray(deps) ? deps.flatMap(dependencyOf) : [] };
}

async function readRequirements(dir: string): Promise<unknown> {
  try {
    const doc: unknown = parse(await readFile(join(dir, 'requirements.yaml'), 'utf8'));
    return isRecord(doc) ? doc.dependencies : undefined;
  } catch {
    return undefined;
  }
}

function dependencyOf(d: unknown): ChartDependency[] {
  if (!isRecord(d) || typeof d.name !== 'string') return [];
  return [
    {
      name: d.name,
      ...(typeof d.version === 'string' ? { version: d.version } : {}),
      ...(typeof d.repository === 'string' ? { repository: d.repository } : {}),
    },
  ];
}

/**
 * What `--helm-chart` names, as operator-sdk decides: an existing local path first (a directory, or a file taken as
 * an archive); otherwise a chart for `helm pull` (with `--helm-chart-repo` as its repository). A path that is
 * obviously local (`./x`, `/x`, `x.tgz`) but missing is reported as such rather than handed to helm.
 */
export async function classifyChart(
  chart: string,
  opts: { readonly repo?: string | undefined; readonly version?: string | undefined; readonly cwd: string },
): Promise<ChartSource> {
  const local = resolve(opts.cwd, chart);
  const st = await stat(local).catch(() => undefined);
  if (st?.isDirectory()) return { type: 'dir', path: local };
  if (st?.isFile()) return { type: 'archive', path: local };
  const url = chart.includes('://');
  if (opts.repo === undefined && !url && /^(\.{1,2}\/|\/|~)|\.(tgz|tar\.gz)$/.test(chart)) {
    throw new ScaffoldError(
      `--helm-chart ${chart}: no such file or directory (looked at ${local})`,
      'SCAFFOLD_CHART_NOT_FOUND',
    );
  }
  return {
    type: 'remote',
    chart,
    ...(opts.repo === undefined ? {} : { repo: opts.repo }),
    ...(opts.version === undefined ? {} : { version: opts.version }),
  };
}

/** Makes the chart readable on disk: a directory as it is, an archive unpacked into tmpDir, a remote chart pulled. */
export async function stageChart(
  source: ChartSource,
  tmpDir: string,
  helm: Pick<HelmChartClient, 'pull'>,
  signal: AbortSignal,
  progress?: Progress,
): Promise<StagedChart> {
  if (source.type === 'dir') {
    return { dir: source.path, meta: await readChartMeta(source.path) };
  }
  const into = join(tmpDir, source.type === 'archive' ? 'archive' : 'pull');
  await mkdir(into, { recursive: true });
  if (source.type === 'archive') {
    const root = archiveRoot(await extractTgz(source.path, into, signal));
    if (root === undefined) {
      throw new ScaffoldError(
        `--helm-chart ${source.path}: not a chart archive (expected one top-level directory, as helm package writes)`,
        'SCAFFOLD_CHART_INVALID',
      );
    }
    return { dir: join(into, root), meta: await readChartMeta(join(into, root)) };
  }
  const what = `helm pull ${source.chart}${source.version ? ` --version ${source.version}` : ''}`;
  await timed(progress, what, () =>
    helm.pull({ chart: source.chart, version: source.version, repo: source.repo, destDir: into, signal }),
  ).catch((err: unknown) => {
    throw pullFailure(source.chart, err);
  });
  // helm also leaves an empty directory named after the last segment of a URL reference: look for Chart.yaml.
  const entries = await readdir(into, { withFileTypes: true });
  const charts = entries.filter((e) => e.isDirectory() && existsSync(join(into, e.name, 'Chart.yaml')));
  const [only] = charts;
  if (charts.length !== 1 || only === undefined) {
    throw new ScaffoldError(
      `helm pull ${source.chart} unpacked ${charts.length} charts instead of one`,
      'SCAFFOLD_CHART_INVALID',
    );
  }
  return { dir: join(into, only.name), meta: await readChartMeta(join(into, only.name)) };
}

export interface PlacedChart {
  /** Absolute path of charts/<name>. */
  readonly dir: string;
  /** True when this call created it (so that a later failure can remove it again). */
  readonly created: boolean;
}

/**
 * `helm create <name>` in chartsDir (helm's default nginx chart), as `create api` does without --helm-chart. An
 * existing charts/<name> is kept as it is with force (its chart is then scaffolded for), refused without.
 */
export async function createDefaultChart(
  chartsDir: string,
  name: string,
  opts: { readonly force: boolean; readonly projectDir: string },
  helm: Pick<HelmChartClient, 'create'>,
  signal: AbortSignal,
): Promise<PlacedChart> {
  const dest = resolve(chartsDir, name);
  if (await exists(dest)) {
    if (opts.force) return { dir: dest, created: false };
    throw new ScaffoldError(
      `${relative(opts.projectDir, dest)} already exists: pass --helm-chart=${relative(opts.projectDir, dest)} to ` +
        'scaffold for it, or --force to keep it and scaffold anyway',
      'SCAFFOLD_CHART_EXISTS',
    );
  }
  await mkdir(chartsDir, { recursive: true });
  await helm.create({ name, dir: chartsDir, signal });
  return { dir: dest, created: true };
}

/** The declared dependencies that charts/ has neither as a directory nor as a `<name>-<version>.tgz`. */
export async function missingDependencies(chartDir: string, meta: ChartMeta): Promise<string[]> {
  return (await missingDependencyList(chartDir, meta)).map((d) => d.name);
}

/** missingDependencies, with each dependency's version and repository. */
export async function missingDependencyList(chartDir: string, meta: ChartMeta): Promise<ChartDependency[]> {
  if (meta.dependencies.length === 0) return [];
  const present = await readdir(join(chartDir, 'charts')).catch(() => [] as string[]);
  return meta.dependencies.filter((d) => !present.some((p) => isDependencyEntry(p, d.name)));
}

/** A charts/ entry that holds dependency `name`: its directory or a `<name>-<version>.tgz`. */
export function isDependencyEntry(entry: string, name: string): boolean {
  return entry === name || (entry.startsWith(`${name}-`) && /\.tgz$/.test(entry));
}

/** What a failed dependency build tells the user to do, given the missing dependencies and helm's reason. */
export type DependencyAdvice = (missing: readonly ChartDependency[], reason: string) => string;

/** The advice for a chart that is already where it stays: vendor into its own charts/ folder. */
const vendorInPlace =
  (chartDir: string): DependencyAdvice =>
  (missing, reason) => {
    const where = join(chartDir, 'charts');
    return (
      `helm dependency build failed: ${reason}; put each missing dependency (${missing.map((d) => d.name).join(', ')}) ` +
      `into ${where}/ as a directory or a .tgz (helm pull <chart> --untar -d ${where}, or copy it), then run ` +
      'create api again: a dependency already there is not fetched'
    );
  };

/**
 * Runs `helm dependency build` when a dependency is missing; returns the names it had to fetch. A failure says how
 * to do without the network (`advice`; by default: vendor the dependency under the chart's charts/ folder).
 */
export async function buildDependencies(
  chartDir: string,
  helm: Pick<HelmChartClient, 'dependencyBuild'>,
  signal: AbortSignal,
  progress?: Progress,
  advice: DependencyAdvice = vendorInPlace(chartDir),
): Promise<string[]> {
  const missing = await missingDependencyList(chartDir, await readChartMeta(chartDir));
  if (missing.length === 0) return [];
  const what = `helm dependency build (${missing.map((d) => d.name).join(', ')})`;
  await timed(progress, what, () => helm.dependencyBuild({ chartDir, signal })).catch((err: unknown) => {
    signal.throwIfAborted();
    throw new ScaffoldError(advice(missing, errorText(err)), 'SCAFFOLD_CHART_NOT_FOUND', { cause: err });
  });
  return missing.map((d) => d.name);
}

/** A line of progress for a slow step (helm pull, helm dependency build); the CLI prints it on stderr. */
export type Progress = (line: string) => void;

/** Runs `step`, saying when it starts and when it ends (with the time it took). */
async function timed<T>(progress: Progress | undefined, what: string, step: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  progress?.(`${what}…`);
  const result = await step();
  progress?.(`${what}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return result;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A failed `helm pull`, with the fix when helm names one: a repository it does not know is added first. */
function pullFailure(chart: string, err: unknown): unknown {
  const text = errorText(err);
  const repo = /repo (\S+) not found/.exec(text)?.[1];
  if (repo === undefined) return err;
  return new ScaffoldError(
    `helm pull ${chart} failed: repo ${repo} not found; add it first (helm repo add ${repo} <its URL>), or pass ` +
      `--helm-chart-repo=<its URL> with --helm-chart=${chart.slice(chart.indexOf('/') + 1)}`,
    'SCAFFOLD_CHART_NOT_FOUND',
    { cause: err },
  );
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
