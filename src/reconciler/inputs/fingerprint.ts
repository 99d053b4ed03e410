// Content fingerprints that let a reconcile skip helm entirely: a digest of the chart directory's files, and a
// release fingerprint over (chart digest, values, options) that ignores object key order but nothing else.
// Called by the reconciler before deciding to spawn helm; reads files only, never follows directory symlinks.
import { createHash, type Hash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../../core/canonical-json.js';

/** Bumped whenever what goes into a release fingerprint changes, so old fingerprints never match new ones. */
export const FINGERPRINT_SCHEME = 'helm-operator/release-fingerprint/v1';

export interface FingerprintInput {
  /** From chartDigest(). */
  readonly chartDigest: string;
  /** The values passed to helm (CR spec merged with overrides). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Everything else that changes what helm does: release name, namespace, flags. */
  readonly options: object;
}

/**
 * sha256 over every entry under `chartDir`, as `sha256:<hex>`. Entries are taken in sorted `/`-separated relative
 * path order; a file contributes `path NUL size NUL content`. Symlinks to files are read through; symlinks to
 * directories (never followed, so loops are impossible) and dangling links contribute their target text.
 * Empty directories contribute nothing. Rejects with `signal.reason` when aborted.
 */
export async function chartDigest(chartDir: string, { signal }: { signal: AbortSignal }): Promise<string> {
  signal.throwIfAborted();
  const hash = createHash('sha256');
  const entries = (await listEntries(chartDir, '', signal)).sort(compareEntries);
  for (const entry of entries) {
    signal.throwIfAborted();
    await hashEntry(hash, chartDir, entry, signal);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** `sha256:<hex>` of the canonical JSON of the scheme tag, chart digest, values and options. */
export function releaseFingerprint({ chartDigest: digest, values, options }: FingerprintInput): string {
  const text = canonicalJson({ scheme: FINGERPRINT_SCHEME, chartDigest: digest, values, options });
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** Version of what the post-renderer does to objects: a change re-renders every release once. */
export const OWNERSHIP_RENDER = 'ownership/v1';

/** A label value (at most 63 characters of [a-z0-9]) from a `sha256:<hex>` fingerprint. */
export function fingerprintLabel(fingerprint: string): string {
  return fingerprint.replace(/^sha256:/, '').slice(0, 63);
}

interface Entry {
  /** Relative, `/`-separated. */
  readonly path: string;
  readonly kind: 'file' | 'symlink' | 'special';
}

/** Every non-directory entry under `root`, unsorted; directory symlinks are listed, not entered. */
async function listEntries(root: string, prefix: string, signal: AbortSignal): Promise<Entry[]> {
  signal.throwIfAborted();
  const dirents: Dirent[] = await readdir(prefix === '' ? root : join(root, prefix), { withFileTypes: true });
  const entries: Entry[] = [];
  for (const dirent of dirents) {
    const path = prefix === '' ? dirent.name : `${prefix}/${dirent.name}`;
    if (dirent.isDirectory()) entries.push(...(await listEntries(root, path, signal)));
    else if (dirent.isFile()) entries.push({ path, kind: 'file' });
    else if (dirent.isSymbolicLink()) entries.push({ path, kind: 'symlink' });
    else entries.push({ path, kind: 'special' });
  }
  return entries;
}

async function hashEntry(hash: Hash, root: string, { path, kind }: Entry, signal: AbortSignal): Promise<void> {
  const full = join(root, path);
  if (kind === 'file' || (kind === 'symlink' && (await pointsToFile(full)))) {
    const content = await readFile(full, { signal });
    hash.update(`${path}\0${content.length}\0`, 'utf8').update(content);
  } else if (kind === 'symlink') {
    // A symlink to a directory, or a dangling or looping one: record where it points, never follow it.
    hash.update(`${path}\0symlink:${await readlink(full)}\0`, 'utf8');
  } else {
    // Sockets, FIFOs, devices: not chart content, and reading a FIFO would block.
    hash.update(`${path}\0special\0`, 'utf8');
  }
}

async function pointsToFile(link: string): Promise<boolean> {
  try {
    return (await stat(link)).isFile();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return false;
    throw err;
  }
}

function compareEntries(a: Entry, b: Entry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
