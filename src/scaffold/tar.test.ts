import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveRoot, extractTgz, readTar } from './tar.js';

interface Entry {
  name: string;
  data?: string;
  type?: string;
  mode?: number;
  prefix?: string;
}

/** One ustar header (+ data, padded) with a correct checksum. */
function block({ name, data = '', type = '0', mode = 0o644, prefix = '' }: Entry): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write(`${mode.toString(8).padStart(7, '0')}\0`, 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${Buffer.byteLength(data).toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write(type, 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  header.write(prefix, 345, 155, 'utf8');
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512);
  body.write(data);
  return Buffer.concat([header, body]);
}

const tar = (...entries: Entry[]) => Buffer.concat([...entries.map(block), Buffer.alloc(1024)]);
const pax = (records: Record<string, string>) => {
  const text = Object.entries(records)
    .map(([k, v]) => {
      const rest = ` ${k}=${v}\n`;
      let len = rest.length + 1;
      while (`${len}${rest}`.length !== len) len++;
      return `${len}${rest}`;
    })
    .join('');
  return { name: 'PaxHeader', type: 'x', data: text };
};
const signal = () => new AbortController().signal;

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tar-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function unpack(archive: Buffer): Promise<string[]> {
  const file = join(dir, 'chart.tgz');
  await writeFile(file, gzipSync(archive));
  return extractTgz(file, join(dir, 'out'), signal());
}

async function failure(archive: Buffer): Promise<Error> {
  try {
    await unpack(archive);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('when the archive is a well-formed chart package', () => {
  it('writes its files with their content and executable bit, under the top-level directory', async () => {
    const written = await unpack(
      tar(
        { name: 'web/', type: '5', mode: 0o755 },
        { name: 'web/Chart.yaml', data: 'name: web\n' },
        { name: 'web/templates/run.sh', data: '#!/bin/sh\n', mode: 0o755 },
      ),
    );
    expect(written).toEqual(['web/Chart.yaml', 'web/templates/run.sh']);
    expect(await readFile(join(dir, 'out/web/Chart.yaml'), 'utf8')).toBe('name: web\n');
    expect((await stat(join(dir, 'out/web/templates/run.sh'))).mode & 0o111).not.toBe(0);
    expect(archiveRoot(written)).toBe('web');
  });

  it('reads long names from ustar prefixes, pax headers and GNU long-name entries', () => {
    const long = `web/templates/${'x'.repeat(120)}.yaml`;
    const entries = readTar(
      tar(
        { name: 'values.yaml', prefix: 'web', data: 'a: 1\n' },
        pax({ path: long }),
        { name: 'truncated', data: 'b: 2\n' },
        { name: '././@LongLink', type: 'L', data: `${long}2\0` },
        { name: 'truncated2', data: 'c: 3\n' },
      ),
      'x.tgz',
    );
    expect(entries.map((e) => [e.path, e.data.toString()])).toEqual([
      ['web/values.yaml', 'a: 1\n'],
      [long, 'b: 2\n'],
      [`${long}2`, 'c: 3\n'],
    ]);
  });
});

describe('when the archive is unsafe or broken', () => {
  it.each([
    ['an absolute path', { name: '/etc/passwd', data: 'x' }, /absolute/],
    ['a .. segment', { name: 'web/../../evil', data: 'x' }, /contains "\.\."/],
    ['a symbolic link', { name: 'web/link', type: '2' }, /is a link/],
    ['a device', { name: 'web/dev', type: '3' }, /type "3"/],
  ])('refuses %s and writes nothing outside', async (_what, entry, reason) => {
    const err = await failure(tar({ name: 'web/ok.yaml', data: 'x' }, entry));
    expect(err).toMatchObject({ code: 'SCAFFOLD_CHART_ARCHIVE_INVALID' });
    expect(err.message).toMatch(reason);
    expect(existsSync(join(dir, 'evil'))).toBe(false);
  });

  it('refuses a file that is not gzip, and a gzip that is not tar', async () => {
    const file = join(dir, 'plain.tgz');
    await writeFile(file, 'not gzip');
    await expect(extractTgz(file, join(dir, 'out'), signal())).rejects.toThrow(/not a gzip file/);
    expect((await failure(Buffer.alloc(2048, 7))).message).toMatch(/not a tar archive/);
  });

  it('refuses a truncated archive', async () => {
    const whole = tar({ name: 'web/big', data: 'y'.repeat(2000) });
    expect((await failure(whole.subarray(0, 1024))).message).toMatch(/truncated/);
  });
});
