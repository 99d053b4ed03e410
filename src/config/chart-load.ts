// An unpacked chart as helm's library loads it (loader.LoadDir: `.helmignore` applied), against what helm's CLI
// checks before it installs: the declared dependencies that no loaded subchart provides (operator-sdk's in-process
// helm renders without them; the CLI refuses the chart), the files helm loads, and the dependency files rewritten
// without them. Called by the reconciler's loaded-chart memo. Reads files only; throws ChartLoadError where helm's
// loader would fail.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type DeclaredDependency,
  declaredDependencies,
  missingDependencies,
  parseChartYaml,
  subchartNames,
} from './chart-dependencies.js';
import { chartFiles } from './chart-files.js';
import { ChartLoadError } from './chart-load-error.js';
import { withoutDependencies } from './dependency-edit.js';
import { helmignoreRules } from './helmignore.js';

export interface ChartAsLoaded {
  /** The declared dependencies helm's library does not load, in declaration order (none: helm's CLI loads it all). */
  readonly missing: readonly DeclaredDependency[];
  /** The files helm loads (relative, `/`-separated); empty when nothing is missing. */
  readonly files: readonly string[];
  /** What `.helmignore` leaves out of charts/ (`charts`, or entries in it), which may explain `missing`. */
  readonly ignoredInCharts: readonly string[];
  /** Chart.yaml and requirements.yaml (those loaded) without the missing dependencies, by relative path. */
  readonly edits: ReadonlyMap<string, string>;
}

const NOTHING_MISSING: ChartAsLoaded = { missing: [], files: [], ignoredInCharts: [], edits: new Map() };

/**
 * Loads `chartDir` as helm's loader.LoadDir does, as far as dependencies go. A chart that declares none (the usual
 * case) costs one read of its Chart.yaml and one stat. Rejects with `signal.reason` when aborted.
 */
export async function chartAsLoaded(chartDir: string, signal: AbortSignal): Promise<ChartAsLoaded> {
  const read = (file: string) => readFile(join(chartDir, file), { encoding: 'utf8', signal });
  const chartYaml = parseChartYaml(await read('Chart.yaml'), 'Chart.yaml');
  const hasRequirements = await exists(join(chartDir, 'requirements.yaml'));
  if (!hasRequirements && declaredDependencies(chartYaml).length === 0) return NOTHING_MISSING;

  const ignoreFile = await read('.helmignore').catch((err: unknown) => {
    if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw err;
  });
  const { files, ignoredInCharts } = await chartFiles(chartDir, helmignoreRules(ignoreFile), signal);
  if (!files.includes('Chart.yaml')) throw new ChartLoadError('.helmignore leaves out Chart.yaml');
  const requirements = files.includes('requirements.yaml')
    ? parseChartYaml(await read('requirements.yaml'), 'requirements.yaml')
    : undefined;
  const declared = declaredDependencies(chartYaml, requirements);
  if (declared.length === 0) return NOTHING_MISSING;
  const missing = missingDependencies(declared, await subchartNames(chartDir, files, signal));
  if (missing.length === 0) return NOTHING_MISSING;

  const drop = new Set(missing.map((d) => d.name));
  const edits = new Map<string, string>();
  for (const file of ['Chart.yaml', 'requirements.yaml']) {
    if (!files.includes(file)) continue;
    const text = await read(file);
    const edited = withoutDependencies(text, drop);
    if (edited === undefined) throw new ChartLoadError(`cannot remove ${[...drop].join(', ')} from ${file}`);
    if (edited !== text) edits.set(file, edited);
  }
  return { missing, files, ignoredInCharts, edits };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
