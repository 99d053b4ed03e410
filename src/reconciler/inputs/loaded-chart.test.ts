import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.js';
import { droppedMessage, LoadedChartMemo } from './loaded-chart.js';

const FIXTURES = resolve(import.meta.dirname, '../../../test/fixtures/charts');
const signal = new AbortController().signal;

describe('LoadedChartMemo, the chart folder handed to helm', () => {
  let work: string;
  let chartDir: string;
  let stageDir: string;
  let digest: string;
  const memo = () =>
    new LoadedChartMemo({ chartDir, stageDir, digest: { get: async () => digest }, logger: silentLogger });

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'loaded-chart-'));
    chartDir = join(work, 'ignored-dependency');
    stageDir = join(work, 'stage');
    digest = 'sha256:1';
    await cp(join(FIXTURES, 'ignored-dependency'), chartDir, { recursive: true });
  });
  afterEach(() => rm(work, { recursive: true, force: true }));

  it('hands helm a chart whose dependencies are all loaded as it is, and stages nothing', async () => {
    chartDir = join(FIXTURES, 'dependency-version-mismatch');
    const chart = await memo().get({ signal });
    expect(chart).toEqual({ path: chartDir, dropped: [], ignoredInCharts: [] });
    await expect(readdir(stageDir)).rejects.toThrow(/ENOENT/);
  });

  it('hands helm a copy of what helm loads, whose Chart.yaml no longer declares the dependency left out', async () => {
    const chart = await memo().get({ signal });
    expect(chart.path).toMatch(new RegExp(`^${stageDir}/chart-[^/]+/ignored-dependency$`));
    expect(chart.dropped).toEqual([{ name: 'keystore', version: '7.2.0', file: 'Chart.yaml' }]);
    expect((await readdir(chart.path, { recursive: true })).sort()).toEqual([
      '.helmignore',
      'Chart.yaml',
      'templates',
      'templates/NOTES.txt',
      'templates/configmap.yaml',
      'values.yaml',
    ]);
    const original = await readFile(join(chartDir, 'Chart.yaml'), 'utf8');
    const staged = await readFile(join(chart.path, 'Chart.yaml'), 'utf8');
    expect(staged).toBe(original.replace(/dependencies:\n[\s\S]*$/, 'dependencies:\n  []\n'));
    expect(await readFile(join(chart.path, 'values.yaml'), 'utf8')).toBe(
      await readFile(join(chartDir, 'values.yaml'), 'utf8'),
    );
  });

  it('works it out once per chart digest, and keeps the copies of the last two', async () => {
    const m = memo();
    const [a, b] = await Promise.all([m.get({ signal }), m.get({ signal })]);
    expect(b).toBe(a);
    digest = 'sha256:2';
    const second = await m.get({ signal });
    expect(second.path).not.toBe(a.path);
    digest = 'sha256:3';
    const third = await m.get({ signal });
    expect(await readdir(stageDir)).toHaveLength(2);
    await expect(readdir(a.path)).rejects.toThrow(/ENOENT/);
    expect((await readdir(third.path)).length).toBeGreaterThan(0);
  });

  it('hands helm a chart it cannot read as helm does as it is, for helm to say why', async () => {
    await writeFile(join(chartDir, '.helmignore'), 'charts/**\n');
    expect((await memo().get({ signal })).path).toBe(chartDir);
  });

  it('hands helm the chart as it is when no copy can be written, and tries again at the next call', async () => {
    await writeFile(stageDir, 'a file where the stage folder goes');
    const m = memo();
    expect((await m.get({ signal })).path).toBe(chartDir);
    await rm(stageDir);
    expect((await m.get({ signal })).path).not.toBe(chartDir);
  });

  it('renders before the first reconcile from the chart itself, or from the copy', async () => {
    expect(await memo().forRender({ signal })).toMatch(/\/chart-[^/]+\/ignored-dependency$/);
    chartDir = join(FIXTURES, 'quirks');
    expect(await memo().forRender({ signal })).toBe(chartDir);
  });
});

describe('droppedMessage, the DependencyDropped event', () => {
  const dep = (name: string, version = '') => ({ name, version, file: 'Chart.yaml' as const });

  it('names the dependency, its version, where it is declared and why it is not loaded', () => {
    expect(droppedMessage({ path: '', dropped: [dep('memcached', '7.2.0')], ignoredInCharts: ['charts'] })).toBe(
      'Chart dependency "memcached" 7.2.0 (declared in Chart.yaml) is not part of the chart as helm\'s library ' +
        "loads it (.helmignore leaves out charts/): the release is rendered without it, as operator-sdk's " +
        'helm-operator does',
    );
  });

  it('names several at once, and says when charts/ simply lacks them', () => {
    expect(droppedMessage({ path: '', dropped: [dep('a', '1.0.0'), dep('b'), dep('c')], ignoredInCharts: [] })).toBe(
      'Chart dependencies "a" 1.0.0, "b" and "c" (declared in Chart.yaml) are not part of the chart as helm\'s ' +
        'library loads it (charts/ holds no subchart of those names): the release is rendered without them, as ' +
        "operator-sdk's helm-operator does",
    );
  });
});
