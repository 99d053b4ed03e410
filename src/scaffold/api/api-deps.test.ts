import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import type { HelmCli } from '../../helm/types.js';
import { runInit } from '../init/init.js';
import { createApi } from './api.js';
import { parseCreateApiArgs } from './flags.js';

const helmBin = findHelm();
const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'charts');
const signal = () => new AbortController().signal;

let dir = '';
let project = '';
let helm: HelmCli;
let server: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'create-api-deps-test-'));
  project = join(dir, 'project');
  await runInit({ dir: project, domain: 'example.com', projectName: 'demo', force: false }, signal());
  if (helmBin !== undefined) helm = await scaffoldHelm(helmBin, dir);
});
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const create = (argv: string[]) =>
  createApi(parseCreateApiArgs(argv, project), { helm, tmpDir: join(dir, 'tmp') }, signal());
const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error('resolved'),
    (e: unknown) => e as Error,
  );

/** Whether the chart repository answers: it is down while create api first runs (as one behind a proxy can be). */
let online = false;

/** A chart repository over HTTP serving dep-lib 0.1.0 (helm package + helm repo index), as a user's would. */
async function chartRepository(): Promise<string> {
  const root = join(dir, 'repo');
  await mkdir(root);
  execFileSync(helmBin ?? 'helm', ['package', join(FIXTURES, 'dep-lib'), '-d', root], { stdio: 'pipe' });
  const http = createServer((req, res) => {
    if (!online) return void res.writeHead(503).end();
    readFile(join(root, (req.url ?? '/').split('?')[0] ?? '/'))
      .then((body) => res.end(body))
      .catch(() => res.writeHead(404).end());
  });
  server = http;
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  execFileSync(helmBin ?? 'helm', ['repo', 'index', root, '--url', url], { stdio: 'pipe' });
  return url;
}

/** Runs one shell command of an error message in the project, with `helm` being the test's helm and its homes. */
async function shell(command: string): Promise<void> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  if (!existsSync(join(bin, 'helm'))) await symlink(helmBin ?? 'helm', join(bin, 'helm'));
  // Not execFileSync: the repository's server runs in this process and must answer meanwhile.
  await promisify(execFile)('sh', ['-c', command], {
    cwd: project,
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      HELM_CACHE_HOME: join(dir, 'helm-cache'),
      HELM_CONFIG_HOME: join(dir, 'helm-config'),
      HELM_DATA_HOME: join(dir, 'helm-data'),
    },
  });
}

describe.skipIf(helmBin === undefined)(
  `create api on a chart whose dependency is not vendored ${helmBin === undefined ? SKIP_REASON : ''}`,
  { timeout: 60_000 },
  () => {
    it('gives advice that works when followed literally, and never deletes what the user vendored', async () => {
      const url = await chartRepository();
      const source = join(dir, 'src', 'dep-parent');
      await cp(join(FIXTURES, 'dep-parent'), source, { recursive: true });
      const chartYaml = join(source, 'Chart.yaml');
      await writeFile(
        chartYaml,
        (await readFile(chartYaml, 'utf8')).replace('https://charts.example.invalid/fixtures', url),
      );
      const before = (await readdir(project, { recursive: true })).sort();
      const command = [`--helm-chart=${source}`];

      // 1. The repository does not answer, so `helm dependency build` cannot fetch dep-lib.
      online = false;
      const err = await failure(create(command));
      expect(err).toMatchObject({ code: 'SCAFFOLD_CHART_NOT_FOUND' });
      expect((await readdir(project, { recursive: true })).sort()).toEqual(before);
      expect(err.message).toContain('no project file was changed');
      expect(err.message).not.toContain('--debug');

      // 2. Do exactly what it says once the repository answers: the mkdir, then the dependency's command, both run
      // by a shell in the project. (From here on helm could fetch it itself: the next run must not need to.)
      online = true;
      const mkdirCommand = /: (mkdir -p \S+), then /.exec(err.message)?.[1];
      const pull = /dep-lib 0\.1\.0: (helm pull .+? -d charts\/dep-parent\/charts)\. Then run the same create api/.exec(
        err.message,
      )?.[1];
      expect(mkdirCommand).toBe('mkdir -p charts/dep-parent/charts');
      expect(pull).toBe(`helm pull dep-lib --repo ${url} --version '0.1.0' -d charts/dep-parent/charts`);
      await shell(mkdirCommand ?? 'false');
      await shell(pull ?? 'false');
      const vendored = await readdir(join(project, 'charts/dep-parent/charts'));
      expect(vendored).toEqual(['dep-lib-0.1.0.tgz']);

      // 3. "Run the same create api command again": it succeeds and keeps the vendored dependency.
      online = false; // the rerun uses what was vendored, without the repository
      const result = await create(command);
      expect(result.chart).toBe('charts/dep-parent');
      expect(await readdir(join(project, 'charts/dep-parent/charts'))).toEqual(vendored);
      expect(existsSync(join(project, 'charts/dep-parent/Chart.yaml'))).toBe(true);
      expect(existsSync(join(source, 'charts'))).toBe(false);

      // 4. Scaffolding it again with --force keeps the dependency too: no loop back to step 1.
      await create([...command, '--force']);
      expect(await readdir(join(project, 'charts/dep-parent/charts'))).toEqual(vendored);
    });

    it('fetches a dependency given by a relative file:// path from next to the source chart', async () => {
      await cp(join(FIXTURES, 'dep-lib'), join(dir, 'src', 'dep-lib'), { recursive: true });
      await cp(join(FIXTURES, 'dep-local'), join(dir, 'src', 'dep-local'), { recursive: true });
      const result = await create([`--helm-chart=${join(dir, 'src', 'dep-local')}`]);
      expect(result.warnings.join('\n')).not.toMatch(/default rules/);
      expect(await readdir(join(project, 'charts/dep-local/charts'))).toEqual(['dep-lib']);
      expect(existsSync(join(dir, 'src', 'dep-local', 'charts'))).toBe(false);
    });

    it('keeps an existing chart in charts/ when a scaffold with --force fails', async () => {
      await create([`--helm-chart=${join(FIXTURES, 'needs-values')}`, '--kind=Msg']);
      const before = (await readdir(join(project, 'charts'), { recursive: true })).sort();
      const source = join(dir, 'src', 'needs-values');
      await cp(join(FIXTURES, 'needs-values'), source, { recursive: true });
      await writeFile(
        join(source, 'templates', 'widget.yaml'),
        'apiVersion: example.invalid/v1\nkind: Widget\nmetadata:\n  name: w\n',
      );
      await writeFile(join(dir, 'on.yaml'), 'message: hello\n');
      const err = await failure(
        create([`--helm-chart=${source}`, '--kind=Msg', '--force', `--values=${join(dir, 'on.yaml')}`]),
      );
      expect(err).toMatchObject({ code: 'SCAFFOLD_UNKNOWN_KIND' });
      expect((await readdir(join(project, 'charts'), { recursive: true })).sort()).toEqual(before);
      expect(existsSync(join(project, 'charts/needs-values/templates/widget.yaml'))).toBe(false);
    });
  },
);
