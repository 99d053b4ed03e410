import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chartDigest, releaseFingerprint } from './fingerprint.js';

const signal = new AbortController().signal;

describe('releaseFingerprint', () => {
  const base = {
    chartDigest: 'sha256:aaaa',
    values: { replicaCount: 2, image: { repository: 'nginx', tag: '1.27' }, ports: [80, 443] },
    options: { releaseName: 'web', namespace: 'apps', flags: { atomic: false } },
  };
  const fingerprint = releaseFingerprint(base);

  it('is sha256:<hex>', () => {
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('ignores key order in values and options', () => {
    const reordered = {
      options: { flags: { atomic: false }, namespace: 'apps', releaseName: 'web' },
      values: { ports: [80, 443], image: { tag: '1.27', repository: 'nginx' }, replicaCount: 2 },
      chartDigest: 'sha256:aaaa',
    };
    expect(releaseFingerprint(reordered)).toBe(fingerprint);
  });

  it.each([
    ['a chart digest', { ...base, chartDigest: 'sha256:aaab' }],
    ['a value', { ...base, values: { ...base.values, replicaCount: 3 } }],
    ['a nested value', { ...base, values: { ...base.values, image: { repository: 'nginx', tag: '1.28' } } }],
    ['a value type', { ...base, values: { ...base.values, replicaCount: '2' } }],
    ['array order', { ...base, values: { ...base.values, ports: [443, 80] } }],
    ['an added value', { ...base, values: { ...base.values, extra: null } }],
    ['a removed value', { ...base, values: { replicaCount: 2, image: base.values.image } }],
    ['an option', { ...base, options: { ...base.options, namespace: 'other' } }],
    ['a nested option', { ...base, options: { ...base.options, flags: { atomic: true } } }],
    ['moving a key between values and options', { ...base, values: {}, options: { ...base.options, ...base.values } }],
  ])('changes with %s', (_, changed) => {
    expect(releaseFingerprint(changed)).not.toBe(fingerprint);
  });
});

describe('chartDigest', () => {
  let dir: string;
  let chart: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fingerprint-test-'));
    chart = join(dir, 'chart');
    await mkdir(join(chart, 'templates'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
    await writeFile(join(chart, 'values.yaml'), 'replicaCount: 1\n');
    await writeFile(join(chart, 'templates', 'deployment.yaml'), 'kind: Deployment\n');
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const digest = () => chartDigest(chart, { signal });

  it('is a stable sha256:<hex> for unchanged files, whatever their mtimes', async () => {
    const first = await digest();
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
    await utimes(join(chart, 'values.yaml'), new Date(2000, 1, 1), new Date(2000, 1, 1));
    expect(await digest()).toBe(first);
  });

  it('is the same for two copies of a chart in different directories', async () => {
    const copy = join(dir, 'copy');
    await mkdir(join(copy, 'templates'), { recursive: true });
    // Written in a different order, so directory listing order differs too.
    await writeFile(join(copy, 'templates', 'deployment.yaml'), 'kind: Deployment\n');
    await writeFile(join(copy, 'values.yaml'), 'replicaCount: 1\n');
    await writeFile(join(copy, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
    expect(await chartDigest(copy, { signal })).toBe(await digest());
  });

  it.each([
    ['editing a file', () => writeFile(join(chart, 'values.yaml'), 'replicaCount: 2\n')],
    ['editing a nested file', () => writeFile(join(chart, 'templates', 'deployment.yaml'), 'kind: StatefulSet\n')],
    ['adding an empty file', () => writeFile(join(chart, 'templates', 'NOTES.txt'), '')],
    ['adding a hidden file', () => writeFile(join(chart, '.helmignore'), '*.bak\n')],
    ['removing a file', () => rm(join(chart, 'values.yaml'))],
    [
      'renaming a file',
      async () => {
        await rm(join(chart, 'templates', 'deployment.yaml'));
        await writeFile(join(chart, 'templates', 'deploy.yaml'), 'kind: Deployment\n');
      },
    ],
    [
      'moving content between two files',
      async () => {
        await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\n');
        await writeFile(join(chart, 'values.yaml'), 'version: 0.1.0\nreplicaCount: 1\n');
      },
    ],
  ])('changes after %s', async (_, change) => {
    const before = await digest();
    await change();
    expect(await digest()).not.toBe(before);
  });

  it('reads through file symlinks and records directory symlinks without following them', async () => {
    await writeFile(join(dir, 'outside.yaml'), 'a: 1\n');
    await symlink(join(dir, 'outside.yaml'), join(chart, 'linked.yaml'));
    await symlink('.', join(chart, 'templates', 'loop'));
    await symlink('missing', join(chart, 'dangling'));
    const before = await digest();

    await writeFile(join(dir, 'outside.yaml'), 'a: 2\n');
    const afterFileChange = await digest();
    expect(afterFileChange).not.toBe(before);

    await rm(join(chart, 'templates', 'loop'));
    await symlink('..', join(chart, 'templates', 'loop'));
    expect(await digest()).not.toBe(afterFileChange);
  });

  it('rejects with the abort reason when the signal is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(chartDigest(chart, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('stops when aborted while walking', async () => {
    for (let i = 0; i < 50; i++) await writeFile(join(chart, 'templates', `t${i}.yaml`), `n: ${i}\n`);
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = chartDigest(chart, { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects for a missing chart directory', async () => {
    await expect(chartDigest(join(dir, 'nope'), { signal })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
