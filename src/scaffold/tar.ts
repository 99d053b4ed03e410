// Unpacks a chart archive (`helm package` output: a gzip'd ustar/pax tar) into a directory with node:zlib and
// core/tar.ts' reader. Called by chart.ts for `create api --helm-chart=<file>.tgz`. Never writes outside the target
// directory: absolute paths, `..` segments, links and device entries are refused, and the archive is size-capped.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { readTar as readTarEntries, type TarEntry } from '../core/tar.js';
import { ChartArchiveError } from './errors.js';

/** helm refuses charts that decompress to more than this (its MaxDecompressedChartSize). */
export const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024;
const gunzipAsync = promisify(gunzip);

/**
 * Unpacks `archive` into `destDir` (created when missing) and returns the relative paths of the files written, in
 * archive order. Throws ChartArchiveError for anything that is not a well-formed, safe gzip'd tar.
 */
export async function extractTgz(archive: string, destDir: string, signal: AbortSignal): Promise<string[]> {
  signal.throwIfAborted();
  const gz = await readFile(archive, { signal });
  let tar: Buffer;
  try {
    tar = await gunzipAsync(gz, { maxOutputLength: MAX_ARCHIVE_BYTES });
  } catch (err) {
    const tooBig = err instanceof RangeError || (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    const reason = tooBig ? `it decompresses to more than ${MAX_ARCHIVE_BYTES} bytes` : 'it is not a gzip file';
    throw new ChartArchiveError(archive, reason, { cause: err });
  }
  signal.throwIfAborted();
  const entries = readTar(tar, archive);
  const root = resolve(destDir);
  await mkdir(root, { recursive: true });
  const written: string[] = [];
  for (const entry of entries) {
    signal.throwIfAborted();
    const target = resolve(root, ...entry.path.split('/'));
    if (!target.startsWith(root + sep)) throw new ChartArchiveError(archive, `entry ${entry.path} escapes the chart`);
    if (entry.type === 'directory') {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, entry.data, { mode: entry.mode });
    written.push(entry.path);
  }
  return written;
}

/** Parses an uncompressed tar into safe entries (core/tar.ts); a bad archive is a ChartArchiveError. */
export function readTar(tar: Buffer, archive: string): TarEntry[] {
  return readTarEntries(tar, (reason) => new ChartArchiveError(archive, reason));
}

/** Where extractTgz put a chart: the single top-level directory of the archive (helm packages `<name>/…`). */
export function archiveRoot(paths: readonly string[]): string | undefined {
  const tops = new Set(paths.map((p) => p.split('/')[0] ?? ''));
  const [only] = tops;
  return tops.size === 1 && only !== undefined && paths.every((p) => p.includes('/')) ? only : undefined;
}
