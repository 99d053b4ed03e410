import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChartMeta } from './chart.js';
import { commitChart, prepareChart } from './chart-place.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'charts');
const signal = () => new AbortController().signal;
/** helm dependency build that fails as it does without network, counting its calls. */
const offline = () => {
  const calls: string[] = [];
  return {
    calls,
    dependencyBuild: async (p: { chartDir: string }) => {
      calls.push(p.chartDir);
      throw new Error('Error: no repository definition for https://charts.example.invalid/fixtures');
    },
  };
};

let dir = '';
let charts = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chart-place-test-'));
  charts = join(dir, 'project', 'charts');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function staged(name: string) {
  const src = join(dir, 'src', name);
  await cp(join(FIXTURES, name), src, { recursive: true });
  return { dir: src, meta: await readChartMeta(src) };
}
const opts = (force = false) => ({ force, projectDir: join(dir, 'project'), tmpDir: join(dir, 'tmp') });
const tree = async (path: string) => (await readdir(path, { recursive: true })).sort();

describe('prepareChart and commitChart', () => {
  it('stages a copy without .git, changes nothing until commit, and commits it', async () => {
    const web = await staged('needs-values');
    await mkdir(join(web.dir, '.git'));
    await writeFile(join(web.dir, '.git', 'HEAD'), 'x');
    const prepared = await prepareChart(web, charts, opts(), offline(), signal());
    expect(prepared).toMatchObject({ dest: join(charts, 'needs-values'), mode: 'new' });
    expect(existsSync(charts)).toBe(false);
    const done = await commitChart(prepared, signal());
    await done.finish();
    expect(await tree(join(charts, 'needs-values'))).toEqual(await tree(join(FIXTURES, 'needs-values')));
  });

  it('refuses to replace another chart without --force; with it, rollback puts the old one back', async () => {
    const web = await staged('needs-values');
    const dest = join(charts, 'needs-values');
    await mkdir(join(dest, 'charts'), { recursive: true });
    await writeFile(join(dest, 'Chart.yaml'), 'apiVersion: v2\nname: needs-values\nversion: 0.0.1\n');
    await writeFile(join(dest, 'charts', 'mine.txt'), 'mine');
    await expect(prepareChart(web, charts, opts(), offline(), signal())).rejects.toMatchObject({
      code: 'SCAFFOLD_CHART_EXISTS',
      message: expect.stringMatching(/^charts\/needs-values already exists: pass --force/),
    });
    const before = await tree(dest);
    const prepared = await prepareChart(web, charts, opts(true), offline(), signal());
    expect(await tree(dest)).toEqual(before);
    const done = await commitChart(prepared, signal());
    expect(await readFile(join(dest, 'Chart.yaml'), 'utf8')).toContain('version: 0.1.0');
    await done.rollback();
    expect(await tree(dest)).toEqual(before);
    expect(await readFile(join(dest, 'Chart.yaml'), 'utf8')).toContain('version: 0.0.1');
    expect(await readdir(charts)).toEqual(['needs-values']);
  });

  it('takes a dependency from an existing charts/<name>/charts/, also with --force, and keeps it', async () => {
    const parent = await staged('dep-parent');
    const dest = join(charts, 'dep-parent');
    await cp(join(FIXTURES, 'dep-lib'), join(dest, 'charts', 'dep-lib'), { recursive: true });
    await writeFile(join(dest, 'charts', 'notes.txt'), 'the user put this here');
    const helm = offline();
    // A folder holding only charts/ is the user's vendored dependencies, not a chart: no --force needed.
    const prepared = await prepareChart(parent, charts, opts(), helm, signal());
    expect(helm.calls).toEqual([]);
    await (await commitChart(prepared, signal())).finish();
    expect(await readdir(join(dest, 'charts'))).toEqual(['dep-lib', 'notes.txt']);
    expect(existsSync(join(dest, 'Chart.yaml'))).toBe(true);
    // Replacing the chart with --force keeps the dependency it lacks.
    const again = await prepareChart(await staged('dep-parent'), charts, opts(true), helm, signal());
    await (await commitChart(again, signal())).finish();
    expect(await readdir(join(dest, 'charts'))).toEqual(['dep-lib']);
    expect(helm.calls).toEqual([]);
    expect((await readdir(charts)).filter((e) => e.startsWith('.'))).toEqual([]);
  });

  it('takes a file:// dependency from next to the source chart', async () => {
    await cp(join(FIXTURES, 'dep-lib'), join(dir, 'src', 'dep-lib'), { recursive: true });
    const local = await staged('dep-local');
    const prepared = await prepareChart(local, charts, { ...opts(), sourceDir: local.dir }, offline(), signal());
    expect(await readdir(join(prepared.dir, 'charts'))).toEqual(['dep-lib']);
    expect(existsSync(join(local.dir, 'charts'))).toBe(false);
  });

  it('says where to vendor a dependency it cannot fetch, with the command, and changes nothing', async () => {
    const parent = await staged('dep-parent');
    const err = await prepareChart(parent, charts, { ...opts(), sourceDir: parent.dir }, offline(), signal()).then(
      () => new Error('resolved'),
      (e: unknown) => e as Error,
    );
    expect(err).toMatchObject({ code: 'SCAFFOLD_CHART_NOT_FOUND' });
    expect(err.message).toBe(
      'cannot fetch the dependencies of charts/dep-parent (helm dependency build: Error: no repository definition ' +
        'for https://charts.example.invalid/fixtures); no project file was changed. Vendor each missing dependency ' +
        `into charts/dep-parent/charts/ in the project (or into ${join(parent.dir, 'charts')}/, the source chart's), ` +
        'as a chart directory or a .tgz: mkdir -p charts/dep-parent/charts, then dep-lib 0.1.0: helm pull dep-lib ' +
        "--repo https://charts.example.invalid/fixtures --version '0.1.0' -d charts/dep-parent/charts. Then run the " +
        'same create api command again: it uses the dependencies it finds there and keeps them',
    );
    expect(existsSync(charts)).toBe(false);
    expect(existsSync(join(parent.dir, 'charts'))).toBe(false);
  });
});
