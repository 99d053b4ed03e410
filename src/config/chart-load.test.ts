// Each layout's expected outcome is what helm 3.22's loader.LoadDir and action.CheckDependencies gave for it.
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chartAsLoaded } from './chart-load.js';
import { ChartLoadError } from './chart-load-error.js';

const FIXTURES = resolve(import.meta.dirname, '../../test/fixtures/charts');
/** `helm package` of a chart named keystore, version 7.2.0. */
const KEYSTORE_TGZ = join(FIXTURES, 'ignored-dependency/charts/keystore-7.2.0.tgz');
const signal = new AbortController().signal;

describe('chartAsLoaded, a chart folder as helm loads it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chart-load-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Writes the files (relative path → text, or a path to copy) of a chart and returns its folder. */
  const chart = async (files: Record<string, string | { copy: string } | { link: string }>) => {
    for (const [path, content] of Object.entries(files)) {
      const to = join(dir, path);
      await mkdir(dirname(to), { recursive: true });
      if (typeof content === 'string') await writeFile(to, content);
      else if ('copy' in content) await cp(content.copy, to);
      else await symlink(content.link, to);
    }
    return dir;
  };
  const withDependencies = (deps: string) => `apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n${deps}`;
  const keystore = '  - name: keystore\n    version: 7.2.0\n';

  it('finds the dependency whose archive .helmignore leaves out, and the Chart.yaml without it', async () => {
    const loaded = await chartAsLoaded(join(FIXTURES, 'ignored-dependency'), signal);
    expect(loaded.missing).toEqual([{ name: 'keystore', version: '7.2.0', file: 'Chart.yaml' }]);
    expect(loaded.files).toEqual([
      '.helmignore',
      'Chart.yaml',
      'templates/NOTES.txt',
      'templates/configmap.yaml',
      'values.yaml',
    ]);
    expect(loaded.ignoredInCharts).toEqual(['charts']);
    expect([...loaded.edits.keys()]).toEqual(['Chart.yaml']);
    expect(loaded.edits.get('Chart.yaml')).toMatch(/^appVersion: 1\.10\ndependencies:\n {2}\[\]\n$/m);
  });

  it('finds nothing missing when the archive is loaded: a subchart is named by its own Chart.yaml', async () => {
    const loaded = await chartAsLoaded(
      await chart({ 'Chart.yaml': withDependencies(keystore), 'charts/renamed.tgz': { copy: KEYSTORE_TGZ } }),
      signal,
    );
    expect(loaded.missing).toEqual([]);
  });

  it('finds nothing missing when the subchart is another version than declared (helm checks names only)', async () => {
    expect((await chartAsLoaded(join(FIXTURES, 'dependency-version-mismatch'), signal)).missing).toEqual([]);
  });

  it('follows symlinks, as helm does', async () => {
    const loaded = await chartAsLoaded(
      await chart({ 'Chart.yaml': withDependencies(keystore), 'charts/keystore-7.2.0.tgz': { link: KEYSTORE_TGZ } }),
      signal,
    );
    expect(loaded.missing).toEqual([]);
  });

  it("reads requirements.yaml's list over Chart.yaml's, and edits requirements.yaml", async () => {
    const loaded = await chartAsLoaded(
      await chart({
        'Chart.yaml': withDependencies('  - name: ignored\n'),
        'requirements.yaml': 'dependencies:\n- name: db\n  version: 1.0.0\n- name: gone\n  version: 1.0.0\n',
        'charts/db/Chart.yaml': 'apiVersion: v1\nname: db\nversion: 1.0.0\n',
      }),
      signal,
    );
    expect(loaded.missing).toEqual([{ name: 'gone', version: '1.0.0', file: 'requirements.yaml' }]);
    expect(loaded.edits.get('requirements.yaml')).toBe('dependencies:\n- name: db\n  version: 1.0.0\n');
    expect(loaded.edits.has('Chart.yaml')).toBe(false);
  });

  it('names each missing dependency by its name, not its alias, as often as it is declared', async () => {
    const aliases = `${keystore}    alias: first\n${keystore}    alias: second\n  - name: other\n    version: 1.0.0\n`;
    const loaded = await chartAsLoaded(
      await chart({
        'Chart.yaml': withDependencies(aliases),
        '.helmignore': '/charts/keystore-*\n',
        'charts/keystore-7.2.0.tgz': { copy: KEYSTORE_TGZ },
      }),
      signal,
    );
    expect(loaded.missing.map((d) => d.name)).toEqual(['keystore', 'keystore', 'other']);
    expect(loaded.ignoredInCharts).toEqual(['charts/keystore-7.2.0.tgz']);
    expect(loaded.edits.get('Chart.yaml')).toMatch(/dependencies:\n {2}\[\]\n$/);
  });

  it('skips charts/ entries starting with _ or ., provenance files, and templates/ dotfiles', async () => {
    const loaded = await chartAsLoaded(
      await chart({
        'Chart.yaml': withDependencies('  - name: keystore\n  - name: absent\n'),
        'charts/_helpers/notes.txt': 'x',
        'charts/.cache/x': 'x',
        'charts/keystore-7.2.0.tgz': { copy: KEYSTORE_TGZ },
        'charts/keystore-7.2.0.tgz.prov': 'signature',
        'templates/.hidden': 'x',
      }),
      signal,
    );
    expect(loaded.missing.map((d) => d.name)).toEqual(['absent']);
    expect(loaded.files).toEqual([
      'Chart.yaml',
      'charts/.cache/x',
      'charts/_helpers/notes.txt',
      'charts/keystore-7.2.0.tgz',
      'charts/keystore-7.2.0.tgz.prov',
    ]);
  });

  it('reads only Chart.yaml of a chart that declares no dependencies', async () => {
    const loaded = await chartAsLoaded(
      await chart({ 'Chart.yaml': 'apiVersion: v2\nname: app\nversion: 0.1.0\n', '.helmignore': '**\n' }),
      signal,
    );
    expect(loaded).toEqual({ missing: [], files: [], ignoredInCharts: [], edits: new Map() });
  });

  it.each([
    ['a .helmignore helm cannot parse', { '.helmignore': 'charts/**\n' }],
    ['a file in charts/ that is no chart', { 'charts/README.md': 'x' }],
    ['a subchart folder without a Chart.yaml', { 'charts/db/values.yaml': 'x: 1\n' }],
    ['a subchart without a name', { 'charts/db/Chart.yaml': 'version: 1.0.0\n' }],
    ['an archive that is no archive', { 'charts/db.tgz': 'not gzip' }],
  ])('throws ChartLoadError where helm cannot load the chart: %s', async (_, files) => {
    const folder = await chart({ 'Chart.yaml': withDependencies(keystore), ...files });
    await expect(chartAsLoaded(folder, signal)).rejects.toThrow(ChartLoadError);
  });
});
