// Puts the chart of `create api` into the project's charts/<name> as one step that can be undone: the chart is copied
// into a staging folder first, completed with the dependencies it lacks (from an existing charts/<name>/charts/, a
// `file://` path next to the source chart, or `helm dependency build`), checked and rendered there by api.ts, and
// only then moved into place; a failure before or after leaves charts/ as it was. Called by api.ts.
import { cp, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import type { HelmChartClient } from '../../helm/types.js';
import { ScaffoldError } from '../errors.js';
import {
  buildDependencies,
  type ChartDependency,
  type DependencyAdvice,
  isDependencyEntry,
  missingDependencyList,
  type Progress,
  type StagedChart,
} from './chart.js';

/** A chart ready to go into the project. */
export interface PreparedChart {
  /** Absolute path of charts/<name>, where the chart goes. */
  readonly dest: string;
  /** Where it is read and rendered from until commit: the staging copy, or dest when it is used in place. */
  readonly dir: string;
  /** in-place: already there; created: made there by this run; new / replace: copied from `dir` at commit. */
  readonly mode: 'in-place' | 'created' | 'new' | 'replace';
}

export interface PrepareOptions {
  readonly force: boolean;
  readonly projectDir: string;
  /** A folder of this run's own, removed by the caller: the staging copy goes there. */
  readonly tmpDir: string;
  /** The source chart's directory when --helm-chart named one (for `file://` dependencies and the advice). */
  readonly sourceDir?: string | undefined;
}

/**
 * Stages `staged` for charts/<name>: refuses an existing chart there without --force (a folder holding nothing but
 * charts/, the user's vendored dependencies, is no chart), copies it, adds the dependencies it lacks, and runs `helm
 * dependency build` for the rest. Changes nothing in the project, also when it fails.
 */
export async function prepareChart(
  staged: StagedChart,
  chartsDir: string,
  opts: PrepareOptions,
  helm: Pick<HelmChartClient, 'dependencyBuild'>,
  signal: AbortSignal,
  progress?: Progress,
): Promise<PreparedChart> {
  const dest = resolve(chartsDir, staged.meta.name);
  const shown = relative(opts.projectDir, dest).split('\\').join('/');
  if (resolve(staged.dir) === dest) {
    await buildDependencies(dest, helm, signal, progress);
    return { dest, dir: dest, mode: 'in-place' };
  }
  const existing = await readdir(dest).catch(() => undefined);
  const vendoredOnly = existing?.every((e) => e === 'charts') === true;
  if (existing !== undefined && !vendoredOnly && !opts.force) {
    throw new ScaffoldError(
      `${shown} already exists: pass --force to replace it with the chart of --helm-chart (dependencies vendored ` +
        `in ${shown}/charts/ that the new chart lacks are kept)`,
      'SCAFFOLD_CHART_EXISTS',
    );
  }
  const dir = join(opts.tmpDir, 'staging', staged.meta.name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(opts.tmpDir, 'staging'), { recursive: true });
  signal.throwIfAborted();
  await cp(staged.dir, dir, { recursive: true, dereference: true, filter: (src) => basename(src) !== '.git' });
  for (const dep of await missingDependencyList(dir, staged.meta)) {
    const from = (await vendoredIn(join(dest, 'charts'), dep)) ?? (await localRepository(opts.sourceDir, dep));
    if (from === undefined) continue;
    await mkdir(join(dir, 'charts'), { recursive: true });
    await cp(from, join(dir, 'charts', basename(from)), { recursive: true, dereference: true });
  }
  if (vendoredOnly) {
    // The user's own folder: everything in it stays, whether the chart declares it or not.
    const have = await readdir(join(dir, 'charts')).catch(() => [] as string[]);
    for (const entry of await readdir(join(dest, 'charts')).catch(() => [] as string[])) {
      if (have.includes(entry)) continue;
      await mkdir(join(dir, 'charts'), { recursive: true });
      await cp(join(dest, 'charts', entry), join(dir, 'charts', entry), { recursive: true });
    }
  }
  await buildDependencies(dir, helm, signal, progress, vendorAdvice(shown, opts.sourceDir));
  return { dest, dir, mode: existing === undefined ? 'new' : 'replace' };
}

/** What commit did, to be undone when a later step fails, or made final. */
export interface CommittedChart {
  /** Puts charts/<name> back as it was before commit. */
  rollback(): Promise<void>;
  /** Removes what rollback would need. */
  finish(): Promise<void>;
}

/** Moves a prepared chart into charts/<name>; an existing folder there is set aside until finish or rollback. */
export async function commitChart(prepared: PreparedChart, signal: AbortSignal): Promise<CommittedChart> {
  const { dest, dir, mode } = prepared;
  const none = async () => {};
  if (mode === 'in-place') return { rollback: none, finish: none };
  if (mode === 'created') return { rollback: () => rm(dest, { recursive: true, force: true }), finish: none };
  signal.throwIfAborted();
  const aside =
    mode === 'replace'
      ? join(
          dest,
          '..',
          `.${basename(dest)}.replaced-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
        )
      : undefined;
  if (aside !== undefined) {
    await rm(aside, { recursive: true, force: true });
    await rename(dest, aside);
  }
  const rollback = async () => {
    await rm(dest, { recursive: true, force: true });
    if (aside !== undefined) await rename(aside, dest);
  };
  try {
    await mkdir(join(dest, '..'), { recursive: true });
    await cp(dir, dest, { recursive: true });
  } catch (err) {
    await rollback();
    throw err;
  }
  const finish = async () => {
    if (aside !== undefined) await rm(aside, { recursive: true, force: true });
  };
  return { rollback, finish };
}

/** The entry of `chartsDir` (an existing charts/<name>/charts/) that holds `dep`, if any. */
async function vendoredIn(chartsDir: string, dep: ChartDependency): Promise<string | undefined> {
  const entries = await readdir(chartsDir).catch(() => [] as string[]);
  const found = entries.filter((e) => isDependencyEntry(e, dep.name)).sort();
  return found.length === 0 ? undefined : join(chartsDir, found[found.length - 1] ?? '');
}

/** A `file://` dependency's directory, resolved against the source chart's directory as helm does. */
async function localRepository(sourceDir: string | undefined, dep: ChartDependency): Promise<string | undefined> {
  if (sourceDir === undefined || dep.repository?.startsWith('file://') !== true) return undefined;
  const path = resolve(sourceDir, dep.repository.slice('file://'.length));
  const st = await stat(join(path, 'Chart.yaml')).catch(() => undefined);
  return st?.isFile() === true ? path : undefined;
}

/** The advice when dependencies cannot be fetched: vendor them where the next run of the same command looks. */
function vendorAdvice(shown: string, sourceDir: string | undefined): DependencyAdvice {
  return (missing, reason) => {
    const into = `${shown}/charts`;
    const how = missing.map((d) => `${d.name}${d.version ? ` ${d.version}` : ''}: ${fetchCommand(d, into)}`);
    const source = sourceDir === undefined ? '' : ` (or into ${join(sourceDir, 'charts')}/, the source chart's)`;
    return (
      `cannot fetch the dependencies of ${shown} (helm dependency build: ${reason}); no project file was changed. ` +
      `Vendor each missing dependency into ${into}/ in the project${source}, as a chart directory or a .tgz: ` +
      `mkdir -p ${into}, then ${how.join('; ')}. Then run the same create api command again: it uses the ` +
      'dependencies it finds there and keeps them'
    );
  };
}

/** The command that puts `dep` into `into`, from its repository as Chart.yaml names it. */
function fetchCommand(d: ChartDependency, into: string): string {
  const version = d.version === undefined ? '' : ` --version '${d.version}'`;
  const repo = d.repository ?? '';
  if (repo.startsWith('oci://')) return `helm pull ${repo.replace(/\/$/, '')}/${d.name}${version} -d ${into}`;
  if (/^https?:\/\//.test(repo)) return `helm pull ${d.name} --repo ${repo}${version} -d ${into}`;
  if (/^(@|alias:)/.test(repo)) return `helm pull ${repo.replace(/^(@|alias:)/, '')}/${d.name}${version} -d ${into}`;
  if (repo.startsWith('file://')) return `copy its chart directory (${repo}) into ${into}/`;
  return `copy its chart directory or .tgz into ${into}/`;
}
