// A reader for uncompressed tar archives (ustar, pax `x`/`g` headers, GNU `L` long names): the entries as safe
// relative paths with their data, held in memory. Used by scaffold/tar.ts (unpacking a chart archive) and
// config/chart-dependencies.ts (a subchart archive's name). Pure: never touches the filesystem, and refuses links,
// devices, absolute paths and `..` through the caller's error.

const BLOCK = 512;

/** One entry: a path relative to the archive's root, already checked. */
export interface TarEntry {
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly mode: number;
  readonly data: Buffer;
}

/** Builds the error thrown for a malformed or unsafe archive, from a reason in a few words. */
export type TarProblem = (reason: string) => Error;

/** Parses an uncompressed tar into safe entries; throws `bad(reason)` for anything malformed or unsafe. */
export function readTar(tar: Buffer, bad: TarProblem): TarEntry[] {
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  for (let off = 0; off + BLOCK <= tar.length; ) {
    const header = tar.subarray(off, off + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header)) throw bad(`it is not a tar archive (bad header checksum at byte ${off})`);
    const type = String.fromCharCode(header[156] ?? 0);
    const size = pax.size !== undefined ? Number(pax.size) : parseSize(header);
    if (!Number.isSafeInteger(size) || size < 0) throw bad(`bad entry size at byte ${off}`);
    const dataStart = off + BLOCK;
    if (dataStart + size > tar.length) throw bad('it is truncated');
    const data = tar.subarray(dataStart, dataStart + size);
    off = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'x') {
      pax = parsePax(data);
      continue;
    }
    if (type === 'g' || type === 'K') continue;
    if (type === 'L') {
      longName = cString(data, 0, data.length);
      continue;
    }
    const rawPath = pax.path ?? longName ?? ustarName(header);
    pax = {};
    longName = undefined;
    const path = safePath(rawPath, bad);
    if (type === '5') {
      if (path !== '') entries.push({ path, type: 'directory', mode: 0o755, data: Buffer.alloc(0) });
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7') {
      const what = type === '1' || type === '2' ? 'a link' : `an entry of type ${JSON.stringify(type)}`;
      throw bad(`${rawPath} is ${what}; a chart archive may only hold files and directories`);
    }
    if (path === '') throw bad('a file entry has an empty name');
    const mode = Number.parseInt(cString(header, 100, 8).trim() || '644', 8) & 0o755;
    entries.push({ path, type: 'file', mode: mode === 0 ? 0o644 : mode | 0o600, data: Buffer.from(data) });
  }
  return entries;
}

/** The entry path normalized to `a/b/c` (no `.`/empty segments); absolute paths and `..` are refused. */
function safePath(raw: string, bad: TarProblem): string {
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw) || raw.includes('\\')) {
    throw bad(`entry ${JSON.stringify(raw)} has an absolute or non-portable path`);
  }
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw bad(`entry ${JSON.stringify(raw)} contains "..": it would escape the chart`);
  return parts.join('/');
}

function checksumOk(header: Buffer): boolean {
  const stored = Number.parseInt(cString(header, 148, 8).trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  return sum === stored;
}

function parseSize(header: Buffer): number {
  const first = header[124] ?? 0;
  if ((first & 0x80) !== 0) {
    // GNU base-256: big-endian binary in the remaining bytes of the field.
    let n = first & 0x7f;
    for (let i = 125; i < 136; i++) n = n * 256 + (header[i] ?? 0);
    return n;
  }
  const text = cString(header, 124, 12).trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

function ustarName(header: Buffer): string {
  const name = cString(header, 0, 100);
  const ustar = cString(header, 257, 6).startsWith('ustar');
  const prefix = ustar ? cString(header, 345, 155) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

/** pax extended header records: `<length> <key>=<value>\n`. */
function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let off = 0;
  while (off < data.length) {
    const space = data.indexOf(0x20, off);
    if (space < 0) break;
    const len = Number.parseInt(data.toString('utf8', off, space), 10);
    if (!Number.isSafeInteger(len) || len <= 0) break;
    const record = data.toString('utf8', space + 1, off + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    off += len;
  }
  return out;
}

function cString(buf: Buffer, start: number, length: number): string {
  const field = buf.subarray(start, start + length);
  const nul = field.indexOf(0);
  return field.toString('utf8', 0, nul < 0 ? field.length : nul);
}
