// Unpacked Helm chart directories on the real filesystem: whether a directory is one (Helm's chartutil.IsChartDir)
// and the chart name in its Chart.yaml. Called by the watches loader (validation), the manager and `cleanup` (names).
// Reads files only; never writes and never resolves paths (callers pass absolute ones).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { isMapping } from './fields.js';
import { parse } from './yaml.js';
import { yamlScalarToString } from './yaml-scalar.js';

/** Helm's chartutil.IsChartDir on the real filesystem: why `dir` is not an unpacked chart, or undefined. */
export function checkChartDir(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) {
      return /\.(tgz|tar\.gz)$/.test(dir)
        ? 'it is a packed chart; unpack it (tar xzf) and point at the directory'
        : 'it is a file, not a directory';
    }
  } catch (err) {
    return fsProblem(err);
  }
  let meta: unknown;
  try {
    meta = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8'));
  } catch (err) {
    return isMapping(err) && err.code === 'ENOENT'
      ? 'it has no Chart.yaml'
      : `its Chart.yaml cannot be read: ${fsProblem(err)}`;
  }
  return isMapping(meta) && yamlScalarToString(meta.name) ? undefined : 'its Chart.yaml has no "name"';
}

/** The `name` in a chart directory's Chart.yaml (the directory was validated by loadWatches). */
export function chartName(dir: string): string {
  const meta: unknown = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8'));
  const name = isMapping(meta) ? yamlScalarToString(meta.name) : undefined;
  if (!name) throw new ConfigError(`${join(dir, 'Chart.yaml')} has no "name"`);
  return name;
}

/** A filesystem error in a few words: "it does not exist", "permission denied", or its first line. */
export function fsProblem(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}
