// Reads what helm prints: `helm version --short` (and the minimum version check), the `--output json` release of
// install and upgrade, and the tail of stderr kept in errors. Called by the CLI adapter (cli.ts) and the composition
// root (checkHelmVersion). Pure; never quotes helm's stdout in an error (it may hold values).
import { isRecord } from '../core/guards.js';
import { HelmOutputError, HelmVersionError } from './errors.js';
import { isReleaseStatus } from './release.js';
import type { HelmVersion, Release } from './types.js';

/**
 * Oldest supported helm: 3.13 (`--labels` on install/upgrade, which carries the release fingerprint, and
 * `--dry-run=server`; since 3.8 `--wait` on uninstall; since 3.7 SIGTERM marks a release failed, not pending).
 */
export const MIN_HELM = { major: 3, minor: 13 } as const;

/** Parses `helm version --short` output: `v3.22.0+gabc1234`, `v4.3.1`, or helm 2's `Client: v2.17.0+g…`. */
export function parseHelmVersion(output: string): HelmVersion {
  const match = /\bv?(\d+)\.(\d+)\.(\d+)\S*/.exec(output);
  if (match === null) {
    throw new HelmVersionError('unknown', 'cannot parse the output of `helm version --short`');
  }
  return { version: match[0], major: Number(match[1]), minor: Number(match[2]) };
}

/** Throws HelmVersionError unless `v` is at least MIN_HELM (helm 3.13); helm 4 is supported. */
export function checkHelmVersion(v: HelmVersion): void {
  if (v.major < MIN_HELM.major || (v.major === MIN_HELM.major && v.minor < MIN_HELM.minor)) {
    throw new HelmVersionError(
      v.version,
      `helm ${v.version} is too old: helm-operator needs helm >= ${MIN_HELM.major}.${MIN_HELM.minor} (v3 or v4)`,
    );
  }
}

/** The last `maxChars` characters of `text` (trimmed); a cut is marked by a leading `…` counted in `maxChars`. */
export function tail(text: string, maxChars: number): string {
  const trimmed = text.trim();
  return trimmed.length <= maxChars ? trimmed : `…${trimmed.slice(trimmed.length - maxChars + 1)}`;
}

/** The line helm prints after each release of `helm uninstall a b c` is gone. */
const UNINSTALLED_LINE = /^release "([^"\n]+)" uninstalled$/;

/** A stdout line listener that calls `onUninstalled` once for each of `releases` helm reports uninstalled. */
export function uninstalledLines(
  releases: readonly string[],
  onUninstalled: (release: string) => void,
): (line: string) => void {
  const waiting = new Set(releases);
  return (line) => {
    const name = UNINSTALLED_LINE.exec(line)?.[1];
    if (name === undefined || !waiting.delete(name)) return;
    onUninstalled(name);
  };
}

/**
 * What a batch `helm uninstall a b c` did before it stopped at `releases[i]`: helm prints `release "a" uninstalled`
 * after each one, in order, and stops at the first failure. Names helm did not report are not counted.
 */
export function uninstallProgress(
  stdout: string,
  releases: readonly string[],
): { readonly uninstalled: string[]; readonly stoppedAt: string | undefined } {
  const reported = new Set<string>();
  for (const line of stdout.split('\n')) {
    const name = UNINSTALLED_LINE.exec(line.replace(/\r$/, ''))?.[1];
    if (name !== undefined) reported.add(name);
  }
  const uninstalled: string[] = [];
  for (const r of releases) {
    if (!reported.has(r)) return { uninstalled, stoppedAt: r };
    uninstalled.push(r);
  }
  return { uninstalled, stoppedAt: undefined };
}

const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

/**
 * Reads helm's `--output json` release, without its values (`config`); errors describe the problem but never quote
 * the output. A status Helm does not define reads as `unknown` (helm prints only the statuses it defines).
 */
export function parseRelease(
  stdout: string,
  command: string,
  ref: { readonly release: string; readonly namespace: string },
): Release {
  const bad = (reason: string) => new HelmOutputError(command, `${ref.namespace}/${ref.release}`, reason);
  // helm prints only the JSON document on stdout; tolerate stray lines around it (plugins, wrappers).
  const start = stdout.indexOf('{');
  const end = stdout.lastIndexOf('}');
  if (start < 0 || end < start) throw bad('no JSON object on stdout');
  let raw: unknown;
  try {
    raw = JSON.parse(stdout.slice(start, end + 1));
  } catch {
    throw bad('stdout is not valid JSON'); // the parser's message quotes the input: not attached
  }
  if (!isRecord(raw)) throw bad('not a JSON object');
  const info = isRecord(raw.info) ? raw.info : {};
  const meta = isRecord(raw.chart) && isRecord(raw.chart.metadata) ? raw.chart.metadata : {};
  if (typeof raw.name !== 'string' || typeof raw.version !== 'number' || typeof info.status !== 'string') {
    throw bad('missing name, version or info.status');
  }
  const status = isReleaseStatus(info.status) ? info.status : 'unknown';
  return {
    name: raw.name,
    namespace: str(raw.namespace, ref.namespace),
    version: raw.version,
    info: typeof info.notes === 'string' ? { status, notes: info.notes } : { status },
    manifest: str(raw.manifest, ''),
    chart: { name: str(meta.name, ''), version: str(meta.version, '') },
  };
}
