import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveName, packPackage } from './pack.js';
import { readTar } from './tar.js';

const signal = new AbortController().signal;
const LONG = `dist/${'deep/'.repeat(25)}file.js`; // over 100 bytes under package/: needs the ustar prefix

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pack-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(path: string, text: string, mode = 0o644): Promise<void> {
  await mkdir(join(dir, 'pkg', path, '..'), { recursive: true });
  await writeFile(join(dir, 'pkg', path), text);
  await chmod(join(dir, 'pkg', path), mode);
}

async function fixture(manifest: Record<string, unknown>): Promise<void> {
  await put('package.json', JSON.stringify(manifest));
  await put('README.md', '# x\n');
  await put('LICENSE', 'Apache-2.0\n');
  await put('dist/cli.js', '#!/usr/bin/env node\n', 0o755);
  await put(LONG, 'export {};\n');
  await put('dist/node_modules/dep/index.js', 'never packed\n');
  await put('extra.txt', 'listed\n');
  await put('src/cli.ts', 'not listed\n');
  await put('node_modules/dep/index.js', 'never packed\n');
}

const unpack = async (file: string) => readTar(gunzipSync(await readFile(file)), file);

describe('packPackage', () => {
  it('packs package.json, README, LICENSE and the "files" entries under package/, as npm pack does', async () => {
    await fixture({
      name: '@s/x',
      version: '1.2.3',
      files: ['dist', './extra.txt', 'missing'],
      bin: { x: 'dist/cli.js' },
    });
    const packed = await packPackage(join(dir, 'pkg'), join(dir, 'out'), signal);
    expect(packed.file).toBe(join(dir, 'out', 's-x-1.2.3.tgz'));
    expect(packed.files).toEqual(['LICENSE', 'README.md', 'dist/cli.js', LONG, 'extra.txt', 'package.json']);
    const entries = await unpack(packed.file);
    expect(entries.map((e) => e.path)).toEqual(packed.files.map((f) => `package/${f}`));
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect(byPath.get('package/dist/cli.js')?.mode).toBe(0o755);
    expect(byPath.get('package/extra.txt')?.mode).toBe(0o644);
    expect(byPath.get(`package/${LONG}`)?.data.toString()).toBe('export {};\n');
    // The same package packs to the same bytes (npm's fixed mtime, sorted entries).
    const first = await readFile(packed.file);
    await packPackage(join(dir, 'pkg'), join(dir, 'out'), signal);
    expect((await readFile(packed.file)).equals(first)).toBe(true);
  });

  it('refuses a package whose bin is not packed, a pattern in "files" and a package.json without a version', async () => {
    await fixture({ name: 'x', version: '1.0.0', files: ['extra.txt'], bin: 'dist/cli.js' });
    await expect(packPackage(join(dir, 'pkg'), join(dir, 'out'), signal)).rejects.toMatchObject({
      code: 'SCAFFOLD_INVALID_FILE',
      message: expect.stringContaining('bin dist/cli.js is not there'),
    });
    await put('package.json', JSON.stringify({ name: 'x', version: '1.0.0', files: ['dist/*.js'] }));
    await expect(packPackage(join(dir, 'pkg'), join(dir, 'out'), signal)).rejects.toThrow(/not a plain path/);
    await put('package.json', JSON.stringify({ name: 'x' }));
    await expect(packPackage(join(dir, 'pkg'), join(dir, 'out'), signal)).rejects.toThrow(/no name and version/);
  });

  it('names archives as npm does', () => {
    expect(archiveName('helm-operator-ts', '0.1.0')).toBe('helm-operator-ts-0.1.0.tgz');
    expect(archiveName('@scope/pkg', '2.0.0-rc.1')).toBe('scope-pkg-2.0.0-rc.1.tgz');
  });
});
