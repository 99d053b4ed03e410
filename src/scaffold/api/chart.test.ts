import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import type { HelmCli } from '../../helm/types.js';
import {
  buildDependencies,
  classifyChart,
  createDefaultChart,
  missingDependencies,
  readChartMeta,
  stageChart,
} from './chart.js';

const helmBin = findHelm();
const signal = () => new AbortController().signal;

let dir = '';
let helm: HelmCli;
let server: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chart-test-'));
  if (helmBin !== undefined) helm = await scaffoldHelm(helmBin, dir);
});
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function chart(name: string, extra = ''): Promise<string> {
  const path = join(dir, 'src', name);
  await mkdir(join(path, 'templates'), { recursive: true });
  await writeFile(join(path, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n${extra}`);
  await writeFile(join(path, 'values.yaml'), 'a: 1\n');
  await writeFile(
    join(path, 'templates', 'cm.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n',
  );
  return path;
}

/** `helm package` (and `helm repo index`) run directly: what a user would have done before create api. */
function helmRun(...args: string[]): void {
  execFileSync(helmBin ?? 'helm', args, { env: { PATH: process.env.PATH, HOME: dir }, stdio: 'ignore' });
}

/** Serves `root` over HTTP on a free port; returns its base URL. */
async function serve(root: string): Promise<string> {
  server = createServer((req, res) => {
    readFile(join(root, (req.url ?? '/').split('?')[0] ?? '/'))
      .then((body) => res.end(body))
      .catch(() => {
        res.statusCode = 404;
        res.end();
      });
  });
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('classifyChart', () => {
  it('takes an existing directory or file as local, anything else as a chart to pull', async () => {
    const src = await chart('web');
    await writeFile(join(dir, 'web.tgz'), '');
    expect(await classifyChart(src, { cwd: '/' })).toEqual({ type: 'dir', path: src });
    expect(await classifyChart('web.tgz', { cwd: dir })).toEqual({ type: 'archive', path: join(dir, 'web.tgz') });
    expect(await classifyChart('bitnami/nginx', { cwd: dir, version: '1.0.0' })).toEqual({
      type: 'remote',
      chart: 'bitnami/nginx',
      version: '1.0.0',
    });
    expect(await classifyChart('nginx', { cwd: dir, repo: 'https://charts.example.com' })).toEqual({
      type: 'remote',
      chart: 'nginx',
      repo: 'https://charts.example.com',
    });
    expect(await classifyChart('oci://r.example.com/c/nginx', { cwd: dir })).toMatchObject({ type: 'remote' });
  });

  it('reports an obviously local path that does not exist instead of asking helm', async () => {
    for (const missing of ['./nope', '/nope/x', 'nope-1.0.0.tgz']) {
      await expect(classifyChart(missing, { cwd: dir })).rejects.toMatchObject({ code: 'SCAFFOLD_CHART_NOT_FOUND' });
    }
  });
});

describe('readChartMeta', () => {
  it('reads name, version and dependencies (Chart.yaml v2 or requirements.yaml)', async () => {
    const v2 = await chart('web', 'dependencies:\n- name: db\n  version: 1.x\n  repository: file://../db\n');
    expect(await readChartMeta(v2)).toEqual({
      name: 'web',
      version: '0.1.0',
      dependencies: [{ name: 'db', version: '1.x', repository: 'file://../db' }],
    });
    const v1 = await chart('old');
    await writeFile(join(v1, 'requirements.yaml'), 'dependencies:\n- name: redis\n');
    expect((await readChartMeta(v1)).dependencies).toEqual([{ name: 'redis' }]);
  });

  it('refuses a chart without a usable name', async () => {
    const bad = await chart('web');
    await writeFile(join(bad, 'Chart.yaml'), 'apiVersion: v2\nname: ../../etc\n');
    await expect(readChartMeta(bad)).rejects.toThrow(/has no usable name/);
    await expect(readChartMeta(join(dir, 'none'))).rejects.toMatchObject({ code: 'SCAFFOLD_CHART_INVALID' });
  });
});

describe.skipIf(helmBin === undefined)(
  `with helm ${helmBin === undefined ? SKIP_REASON : ''}`,
  { timeout: 30_000 },
  () => {
    it('unpacks a helm package archive', async () => {
      helmRun('package', await chart('web'), '-d', join(dir, 'pkg'));
      const staged = await stageChart(
        { type: 'archive', path: join(dir, 'pkg', 'web-0.1.0.tgz') },
        join(dir, 'tmp'),
        helm,
        signal(),
      );
      expect(staged.meta.name).toBe('web');
      expect(await readFile(join(staged.dir, 'templates', 'cm.yaml'), 'utf8')).toContain('kind: ConfigMap');
    });

    it('pulls a chart by URL and by name from a --helm-chart-repo repository', async () => {
      helmRun('package', await chart('web'), '-d', join(dir, 'repo'));
      const base = await serve(join(dir, 'repo'));
      helmRun('repo', 'index', join(dir, 'repo'), '--url', base);

      const byUrl = await stageChart(
        { type: 'remote', chart: `${base}/web-0.1.0.tgz` },
        join(dir, 'tmp1'),
        helm,
        signal(),
      );
      expect(byUrl.meta).toMatchObject({ name: 'web', version: '0.1.0' });
      const byRepo = await stageChart(
        { type: 'remote', chart: 'web', repo: base, version: '0.1.0' },
        join(dir, 'tmp2'),
        helm,
        signal(),
      );
      expect(byRepo.meta.name).toBe('web');
      await expect(
        stageChart({ type: 'remote', chart: 'nope', repo: base }, join(dir, 'tmp3'), helm, signal()),
      ).rejects.toMatchObject({
        code: 'HELM_COMMAND_FAILED',
        failure: { command: 'pull' },
      });
    });

    it('says how to add a repository helm does not know, and tells when the pull starts and ends', async () => {
      const lines: string[] = [];
      const err = await stageChart(
        { type: 'remote', chart: 'nosuchrepo/web' },
        join(dir, 'tmp4'),
        helm,
        signal(),
        (line) => lines.push(line),
      ).then(
        () => new Error('resolved'),
        (e: unknown) => e as Error,
      );
      expect(err).toMatchObject({ code: 'SCAFFOLD_CHART_NOT_FOUND' });
      expect(err.message).toMatch(
        /^helm pull nosuchrepo\/web failed: repo nosuchrepo not found; add it first \(helm repo add nosuchrepo <its URL>\), or pass --helm-chart-repo=<its URL> with --helm-chart=web$/,
      );
      expect(lines).toEqual(['helm pull nosuchrepo/web…']);

      helmRun('package', await chart('web'), '-d', join(dir, 'repo2'));
      const base = await serve(join(dir, 'repo2'));
      helmRun('repo', 'index', join(dir, 'repo2'), '--url', base);
      await stageChart({ type: 'remote', chart: 'web', repo: base }, join(dir, 'tmp5'), helm, signal(), (line) =>
        lines.push(line),
      );
      expect(lines.slice(1)).toEqual(['helm pull web…', expect.stringMatching(/^helm pull web: done in \d+\.\d s$/)]);
    });

    it('says to vendor a dependency that cannot be fetched, and tells when the build starts', async () => {
      const web = await chart(
        'web',
        'dependencies:\n- name: common\n  version: 2.x.x\n  repository: oci://registry.invalid/charts\n',
      );
      const lines: string[] = [];
      const err = await buildDependencies(web, helm, signal(), (line) => lines.push(line)).then(
        () => new Error('resolved'),
        (e: unknown) => e as Error,
      );
      expect(err).toMatchObject({ code: 'SCAFFOLD_CHART_NOT_FOUND' });
      expect(err.message).toMatch(/^helm dependency build failed: .*; put each missing dependency \(common\) into /);
      expect(err.message).toContain(`${join(web, 'charts')}/ as a directory or a .tgz`);
      expect(lines).toEqual(['helm dependency build (common)…']);
    });

    it('creates a default chart with helm create, and keeps an existing one only with force', async () => {
      const charts = join(dir, 'charts');
      const placed = await createDefaultChart(charts, 'memcached', { force: false, projectDir: dir }, helm, signal());
      expect(placed).toEqual({ dir: join(charts, 'memcached'), created: true });
      expect((await readChartMeta(placed.dir)).name).toBe('memcached');
      await expect(
        createDefaultChart(charts, 'memcached', { force: false, projectDir: dir }, helm, signal()),
      ).rejects.toThrow(/charts\/memcached already exists: pass --helm-chart=charts\/memcached/);
      expect(await createDefaultChart(charts, 'memcached', { force: true, projectDir: dir }, helm, signal())).toEqual({
        ...placed,
        created: false,
      });
    });

    it('builds missing dependencies, and leaves charts whose dependencies are vendored alone', async () => {
      const db = await chart('db');
      const web = await chart('web', `dependencies:\n- name: db\n  version: 0.1.0\n  repository: file://${db}\n`);
      expect(await missingDependencies(web, await readChartMeta(web))).toEqual(['db']);
      expect(await buildDependencies(web, helm, signal())).toEqual(['db']);
      expect((await readdir(join(web, 'charts'))).filter((f) => f.endsWith('.tgz'))).toEqual(['db-0.1.0.tgz']);
      const calls: string[] = [];
      expect(await buildDependencies(web, { dependencyBuild: async () => void calls.push('build') }, signal())).toEqual(
        [],
      );
      expect(calls).toEqual([]);
    });
  },
);
