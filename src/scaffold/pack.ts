// An npm package folder packed as `npm pack` packs it, without npm: package.json, README*/LICENSE* and the entries of
// its `files`, under `package/` in a gzip'd ustar archive named <name>-<version>.tgz (npm's name, file modes and
// fixed mtime). Called by src/cmd/pack.ts (`helm-operator pack`, which `make docker-build` runs to put the CLI the
// user runs into bin/image/). Never runs npm or reads the network; writes only the one archive (renamed into place).
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ScaffoldError } from './errors.js';

export interface PackedPackage {
  /** The archive written: `<destDir>/<name>-<version>.tgz`. */
  readonly file: string;
  readonly name: string;
  readonly version: string;
  /** The packed paths, relative to the package folder, sorted. */
  readonly files: readonly string[];
}

interface Manifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly files?: unknown;
  readonly bin?: unknown;
}

/** npm's fixed mtime for every entry (1985-10-26T08:15:00Z), so that one package packs to the same bytes. */
const NPM_MTIME = Date.UTC(1985, 9, 26, 8, 15, 0) / 1000;
const BLOCK = 512;
/** What npm never packs, wherever it is under a `files` folder. */
const NEVER = new Set(['node_modules', '.git', '.svn', '.hg', 'CVS', '.DS_Store', '.npmrc', 'npm-debug.log']);
/** What npm always packs from the package's top level, besides package.json. */
const ALWAYS = /^(readme|license|licence)(\..*)?$/i;

/** The archive's file name, as npm names it: `@scope/name` becomes `scope-name`. */
export function archiveName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** Packs the package folder `root` into `destDir` (created when missing). */
export async function packPackage(root: string, destDir: string, signal: AbortSignal): Promise<PackedPackage> {
  const manifestPath = join(root, 'package.json');
  const invalid = (why: string) => new ScaffoldError(`${manifestPath}: ${why}`, 'SCAFFOLD_INVALID_FILE');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestPath, { encoding: 'utf8', signal })) as Manifest;
  } catch (err) {
    throw new ScaffoldError(`cannot read ${manifestPath}: ${(err as Error).message}`, 'SCAFFOLD_INVALID_FILE', {
      cause: err,
    });
  }
  const { name, version } = manifest;
  if (typeof name !== 'string' || typeof version !== 'string') throw invalid('no name and version');
  const files = new Set(['package.json']);
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.isFile() && ALWAYS.test(entry.name)) files.add(entry.name);
  }
  const listed = Array.isArray(manifest.files) ? manifest.files : [];
  for (const item of listed) {
    if (typeof item !== 'string' || /[*?[\]{}!]/.test(item)) {
      throw invalid(`"files" entry ${JSON.stringify(item)} is not a plain path, which is all helm-operator pack takes`);
    }
    const rel = normalize(item).replace(/\/+$/, '');
    if (rel.startsWith('..') || rel.startsWith('/')) throw invalid(`"files" entry ${JSON.stringify(item)} leaves it`);
    for (const f of await walk(root, rel, signal)) files.add(f);
  }
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  for (const bin of bins.map((b) => normalize(String(b)))) {
    if (!files.has(bin)) {
      throw invalid(`its bin ${bin} is not there (or not in "files"): the package would install no command`);
    }
  }
  const sorted = [...files].sort();
  const blocks: Buffer[] = [];
  for (const path of sorted) {
    signal.throwIfAborted();
    const full = join(root, path);
    const [data, info] = await Promise.all([readFile(full, { signal }), stat(full)]);
    blocks.push(header(`package/${path}`, data.length, (info.mode & 0o111) !== 0 ? 0o755 : 0o644), data);
    blocks.push(Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  await mkdir(destDir, { recursive: true });
  const file = join(destDir, archiveName(name, version));
  const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
  await writeFile(partial, gzipSync(Buffer.concat(blocks), { level: 9 }), { signal });
  await rename(partial, file);
  return { file, name, version, files: sorted };
}

/** The files at `rel` under `root` (itself, when a file; every file below it, when a folder; none when missing). */
async function walk(root: string, rel: string, signal: AbortSignal): Promise<string[]> {
  signal.throwIfAborted();
  const info = await stat(join(root, rel)).catch(() => undefined);
  if (info === undefined) return [];
  if (info.isFile()) return [rel];
  if (!info.isDirectory()) return [];
  const out: string[] = [];
  for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
    if (NEVER.has(entry.name) || entry.name.endsWith('.orig')) continue;
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await walk(root, child, signal)));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

/** A ustar header for a regular file; a path over 100 bytes goes into the 155-byte prefix field, split at a `/`. */
function header(path: string, size: number, mode: number): Buffer {
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(path) > 100) {
    const cut = [...path.matchAll(/\//g)]
      .map((m) => m.index)
      .find((i) => Buffer.byteLength(path.slice(0, i)) <= 155 && Buffer.byteLength(path.slice(i + 1)) <= 100);
    if (cut === undefined) {
      throw new ScaffoldError(`${path}: too long for a tar header (ustar)`, 'SCAFFOLD_INVALID_PATH');
    }
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  const h = Buffer.alloc(BLOCK);
  const octal = (value: number, at: number, width: number) =>
    h.write(`${value.toString(8).padStart(width - 1, '0')}\0`, at, 'ascii');
  h.write(name, 0, 100, 'utf8');
  octal(mode, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(NPM_MTIME, 136, 12);
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}
