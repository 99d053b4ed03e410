// The files of an unpacked chart as helm's loader.LoadDir takes them: `.helmignore` applied (an ignored folder is
// not entered), symlinks followed, in lexical order. Called by chart-load.ts. Reads folder listings and file types
// only, never file content; throws where helm's walk fails (a dangling link, a socket, a link loop).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ChartLoadError } from './chart-load-error.js';
import { type IgnoreRules, isIgnored } from './helmignore.js';

/** Deeper than this, a folder is taken for a symlink loop (helm would walk it until the OS refuses). */
const MAX_DEPTH = 64;

export interface ChartFiles {
  /** The files helm loads, relative to the chart and `/`-separated, in walk order. */
  readonly files: readonly string[];
  /** What `.helmignore` leaves out of `charts/`: `charts` itself, or entries directly in it. */
  readonly ignoredInCharts: readonly string[];
}

/** Walks `chartDir` as LoadDir does. Rejects with `signal.reason` when aborted. */
export async function chartFiles(chartDir: string, rules: IgnoreRules, signal: AbortSignal): Promise<ChartFiles> {
  const files: string[] = [];
  const ignoredInCharts: string[] = [];
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    signal.throwIfAborted();
    if (depth > MAX_DEPTH)
      throw new ChartLoadError(`${prefix} is more than ${MAX_DEPTH} folders deep: a symlink loop?`);
    const names = (await readdir(dir)).sort(byBytes);
    for (const name of names) {
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const entry = await stat(join(dir, name)); // follows symlinks, as helm's walk does
      const isDir = entry.isDirectory();
      if (isIgnored(rules, path, isDir)) {
        if (path === 'charts' || /^charts\/[^/]+$/.test(path)) ignoredInCharts.push(path);
        continue;
      }
      if (isDir) await walk(join(dir, name), path, depth + 1);
      else if (entry.isFile()) files.push(path);
      else throw new ChartLoadError(`cannot load irregular file ${path}`);
    }
  };
  await walk(chartDir, '', 0);
  return { files, ignoredInCharts };
}

/** Go's sort.Strings order (bytes), which differs from JavaScript's for characters beyond the BMP. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
