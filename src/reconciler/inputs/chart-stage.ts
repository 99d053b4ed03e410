// Writes a staged copy of a chart for helm: the files helm's library loads (config/chart-load.ts), copied into a new
// folder under the operator's stage directory, with some of them replaced by edited text. Called by
// loaded-chart.ts; writes only under `stageDir`, never into the chart itself.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface StageInput {
  readonly chartDir: string;
  /** Relative, `/`-separated paths of the files to copy. */
  readonly files: readonly string[];
  /** Text that replaces a file's content, by relative path. */
  readonly edits: ReadonlyMap<string, string>;
  /** The folder the copy goes into (created when missing). */
  readonly stageDir: string;
  readonly signal: AbortSignal;
}

/** Copies the chart and returns the copy's folder, `<stageDir>/chart-XXXXXX/<the chart folder's name>`. */
export async function stageChart(input: StageInput): Promise<string> {
  const { chartDir, files, edits, stageDir, signal } = input;
  signal.throwIfAborted();
  await mkdir(stageDir, { recursive: true, mode: 0o700 });
  const holder = await mkdtemp(join(stageDir, 'chart-'));
  const target = join(holder, basename(chartDir));
  try {
    for (const file of files) {
      signal.throwIfAborted();
      const to = join(target, ...file.split('/'));
      await mkdir(dirname(to), { recursive: true });
      const edited = edits.get(file);
      if (edited === undefined) await copyFile(join(chartDir, ...file.split('/')), to);
      else await writeFile(to, edited, { signal });
    }
  } catch (err) {
    await removeStaged(target);
    throw err;
  }
  return target;
}

/** Removes a copy made by stageChart (its holder folder too); never throws. */
export async function removeStaged(target: string): Promise<void> {
  await rm(dirname(target), { recursive: true, force: true }).catch(() => undefined);
}
