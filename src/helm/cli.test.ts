import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../core/errors.js';
import { createHelmCli, type HelmCliOptions } from './cli.js';
import { POST_RENDER_PLUGIN } from './env.js';
import { HelmCommandError, HelmNotFoundError, HelmVersionError } from './errors.js';
import { checkHelmVersion } from './output.js';

// A fake `helm`: records its argv, the env variables we care about and the values file (content and mode) into
// $FAKE_RECORD, then behaves according to $FAKE_MODE. Signals it receives are appended to $FAKE_RECORD.signals.
// With $FAKE_VERSION set, `helm version` prints it in every mode.
const FAKE_HELM = `#!${process.execPath}
'use strict';
const fs = require('node:fs');
const args = process.argv.slice(2);
const env = process.env;
const record = env.FAKE_RECORD;
const mode = env.FAKE_MODE || 'ok';
const onTerm = (exit) => process.on('SIGTERM', () => {
  fs.appendFileSync(record + '.signals', 'SIGTERM\\n');
  if (exit) process.exit(143);
});
if (mode === 'hang') onTerm(true);
if (mode === 'stubborn') onTerm(false);
const at = (flag) => { const i = args.indexOf(flag); return i < 0 ? undefined : args[i + 1]; };
const file = at('--values');
const values = file === undefined ? null
  : { file, content: fs.readFileSync(file, 'utf8'), mode: fs.statSync(file).mode & 0o777 };
const keys = ['KUBECONFIG', 'HELM_CACHE_HOME', 'HELM_CONFIG_HOME', 'HELM_DATA_HOME', 'HELM_DRIVER',
  'HELM_MAX_HISTORY', 'HELM_NAMESPACE', 'HELM_KUBECONTEXT', 'KUBECACHEDIR', 'NO_COLOR', 'KEPT'];
const seen = {};
for (const k of keys) if (env[k] !== undefined) seen[k] = env[k];
fs.writeFileSync(record + '.tmp', JSON.stringify({ args, env: seen, values }));
fs.renameSync(record + '.tmp', record);
if (mode === 'version' || (args[0] === 'version' && env.FAKE_VERSION)) {
  process.stdout.write(env.FAKE_VERSION + '\\n');
} else if (mode === 'echo-fail') {
  process.stderr.write('Error: failed to fetch ' + args.join(' ') + '\\n');
  process.exit(2);
} else if (mode === 'fail') {
  process.stderr.write('noise line\\n'.repeat(1000));
  process.stderr.write('Error: UPGRADE FAILED: values ' + (values && values.content) + ' from ' + file + '\\n');
  process.exit(3);
} else if (mode === 'uninstall-partial') {
  for (const name of args.slice(1, args.indexOf('--namespace'))) {
    if (name === 'bad') {
      process.stderr.write('Error: uninstall: Release not loaded: bad: release: not found\\n');
      process.exit(1);
    }
    process.stdout.write('release "' + name + '" uninstalled\\n');
  }
} else if (mode === 'hang' || mode === 'stubborn') {
  setInterval(() => {}, 60000);
} else if (args[0] === 'install' || args[0] === 'upgrade') {
  if (env.FAKE_STDERR) process.stderr.write(env.FAKE_STDERR);
  process.stdout.write(JSON.stringify({
    name: args[1], namespace: at('--namespace'), version: args[0] === 'install' ? 1 : 2,
    info: { status: 'deployed', notes: 'NOTES' }, manifest: 'kind: ConfigMap\\n',
    config: values && JSON.parse(values.content), chart: { metadata: { name: 'web', version: '0.1.0' } },
  }));
} else {
  process.stdout.write('done\\n');
}
`;

interface FakeRecord {
  args: string[];
  env: Record<string, string>;
  values: { file: string; content: string; mode: number } | null;
}

const SECRET = 'hunter2-very-secret';
const VALUES = { replicaCount: 2, db: { password: SECRET } };
const release = { release: 'web', namespace: 'apps', chart: '/charts/web' };
const WAIT = { timeout: 10_000, interval: 20 };

let root = '';
let helm = '';
let cases = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'helm-cli-test-'));
  helm = join(root, 'helm');
  await writeFile(helm, FAKE_HELM, { mode: 0o755 });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function setup(mode: string, overrides: Partial<HelmCliOptions> = {}) {
  const dir = join(root, `case-${++cases}`);
  await mkdir(dir);
  const workDir = join(dir, 'work');
  const record = join(dir, 'record.json');
  const spawned: string[][] = [];
  const options: HelmCliOptions = {
    binary: helm,
    workDir,
    kubeconfig: '/etc/kube/operator.conf',
    env: { FAKE_MODE: mode, FAKE_RECORD: record, KEPT: 'yes', HELM_NAMESPACE: 'wrong', HELM_KUBECONTEXT: 'wrong' },
    onSpawn: (args) => spawned.push([...args]),
    major: 3,
    ...overrides,
  };
  return {
    client: createHelmCli(options),
    options,
    workDir,
    spawned,
    started: () => existsSync(record),
    recorded: (): FakeRecord => JSON.parse(readFileSync(record, 'utf8')) as FakeRecord,
    signals: (): string[] =>
      existsSync(`${record}.signals`) ? readFileSync(`${record}.signals`, 'utf8').split('\n').filter(Boolean) : [],
    leftoverValueFiles: async () => (await readdir(workDir)).filter((name) => name.startsWith('values-')),
  };
}

const signal = () => new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to reject');
}

describe('when helm install succeeds', { timeout: 20_000 }, () => {
  it('passes the values in a 0600 file that is removed afterwards and never on argv', async () => {
    const t = await setup('ok');
    await t.client.install({ ...release, values: VALUES, signal: signal() });

    const rec = t.recorded();
    expect(rec.values).not.toBeNull();
    expect(rec.values?.mode).toBe(0o600);
    expect(JSON.parse(rec.values?.content ?? '')).toEqual(VALUES);
    expect(rec.values?.file.startsWith(t.workDir)).toBe(true);
    expect(existsSync(rec.values?.file ?? '')).toBe(false);
    expect(await t.leftoverValueFiles()).toEqual([]);
    expect(rec.args.join(' ')).not.toContain(SECRET);
    expect(t.spawned).toEqual([rec.args.map((a) => (a === rec.values?.file ? '<values>' : a))]);
  });

  it('returns the parsed release without the values', async () => {
    const t = await setup('ok');
    const result = await t.client.install({ ...release, values: VALUES, signal: signal() });
    expect(result).toEqual({
      name: 'web',
      namespace: 'apps',
      version: 1,
      info: { status: 'deployed', notes: 'NOTES' },
      manifest: 'kind: ConfigMap\n',
      chart: { name: 'web', version: '0.1.0' },
    });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('gives helm private homes, the shared kube cache and the kubeconfig through env only', async () => {
    const t = await setup('ok');
    await t.client.install({ ...release, values: VALUES, signal: signal() });
    const { env, args } = t.recorded();

    expect(env.KUBECONFIG).toBe('/etc/kube/operator.conf');
    expect(args).not.toContain('/etc/kube/operator.conf');
    expect(env.HELM_NAMESPACE).toBeUndefined();
    expect(env.HELM_KUBECONTEXT).toBeUndefined();
    expect(env).toMatchObject({ KEPT: 'yes', NO_COLOR: '1', HELM_DRIVER: 'secret', HELM_MAX_HISTORY: '10' });
    expect(env.KUBECACHEDIR).toBe(join(t.workDir, 'kube-cache'));
    for (const key of ['HELM_CACHE_HOME', 'HELM_CONFIG_HOME', 'HELM_DATA_HOME', 'KUBECACHEDIR']) {
      const dir = env[key] ?? '';
      expect(dir.startsWith(t.workDir)).toBe(true);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }

    // A second client sharing the workDir gets its own helm homes but the same discovery cache.
    const other = createHelmCli(t.options);
    await other.install({ ...release, values: VALUES, signal: signal() });
    const second = t.recorded().env;
    expect(second.HELM_CACHE_HOME).not.toBe(env.HELM_CACHE_HOME);
    expect(second.KUBECACHEDIR).toBe(env.KUBECACHEDIR);
  });
});

describe('when upgrading, uninstalling and rolling back', { timeout: 20_000 }, () => {
  it('upgrades with the configured history limit and the requested dry-run mode', async () => {
    const t = await setup('ok', { historyMax: 3 });
    const result = await t.client.upgrade({
      ...release,
      values: VALUES,
      dryRun: 'server',
      force: true,
      signal: signal(),
    });
    expect(result.version).toBe(2);
    const { args, env } = t.recorded();
    expect(args.slice(0, 3)).toEqual(['upgrade', 'web', '/charts/web']);
    expect(args).toEqual(
      expect.arrayContaining(['--history-max', '3', '--dry-run=server', '--force', '--reset-values']),
    );
    expect(env.HELM_MAX_HISTORY).toBe('3');
  });

  it('uninstalls and rolls back without any values file', async () => {
    const t = await setup('ok', { historyMax: 4 });
    await t.client.uninstall({ release: 'web', namespace: 'apps', wait: true, signal: signal() });
    expect(t.recorded()).toMatchObject({ args: ['uninstall', 'web', '--namespace', 'apps', '--wait'], values: null });
    await t.client.rollback({ release: 'web', namespace: 'apps', revision: 2, signal: signal() });
    expect(t.recorded().args).toEqual(['rollback', 'web', '2', '--namespace', 'apps', '--history-max', '4']);
  });

  it('uninstalls several releases in one process and, when one fails, names it and those gone before it', async () => {
    const t = await setup('uninstall-partial');
    await t.client.uninstall({ release: 'web', namespace: 'apps', also: ['api'], signal: signal() });
    expect(t.recorded().args).toEqual(['uninstall', 'web', 'api', '--namespace', 'apps']);
    const err = await rejection(
      t.client.uninstall({ release: 'web', namespace: 'apps', also: ['api', 'bad', 'db'], signal: signal() }),
    );
    expect(err).toBeInstanceOf(HelmCommandError);
    const { failure } = err as HelmCommandError;
    expect(failure).toMatchObject({ release: 'bad', uninstalled: ['web', 'api'], exitCode: 1 });
    expect((err as Error).message).toBe(
      'helm uninstall of release apps/bad failed with exit code 1: Error: uninstall: Release not loaded: bad: release: not found',
    );
  });
});

describe('when helm exits non-zero', { timeout: 20_000 }, () => {
  it('throws HelmCommandError with the exit code, the stderr tail and no values', async () => {
    const t = await setup('fail');
    const err = await rejection(t.client.upgrade({ ...release, values: VALUES, signal: signal() }));

    expect(err).toBeInstanceOf(HelmCommandError);
    if (!(err instanceof HelmCommandError)) return;
    expect(err).toMatchObject({
      code: 'HELM_COMMAND_FAILED',
      failure: { command: 'upgrade', exitCode: 3, canceled: false },
    });
    expect(err.failure.timedOut).toBe(false);
    expect(err.message).toMatch(/^helm upgrade of release apps\/web failed with exit code 3: Error: UPGRADE FAILED/);
    expect(err.failure.stderr.length).toBeLessThanOrEqual(4096);
    expect(err.failure.stderr).toContain('Error: UPGRADE FAILED');
    expect(err.failure.stderr).toContain('from <values>');
    expect(err.failure.args).toContain('<values>');

    const file = t.recorded().values?.file ?? '';
    const everything = inspect(err, { depth: 10 }) + JSON.stringify(err) + err.message + err.failure.stderr;
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(file);
    expect(err.cause).toBeInstanceOf(Error);
    expect(existsSync(file)).toBe(false);
    expect(await t.leftoverValueFiles()).toEqual([]);
  });
});

describe('when the call names strings to hide (values read from Secrets)', { timeout: 20_000 }, () => {
  it('scrubs them from the error whatever their length, while values stay in the file', async () => {
    const t = await setup('fail');
    const values = { db: { pin: '4711', host: 'db' } };
    const err = await rejection(t.client.install({ ...release, values, secrets: ['4711'], signal: signal() }));
    expect(err).toBeInstanceOf(HelmCommandError);
    const everything = inspect(err, { depth: 10 }) + JSON.stringify(err);
    expect(everything).not.toContain('4711');
    expect(everything).toContain('"host":"db"'); // a short value of an ordinary key is not a secret
    expect(JSON.parse(t.recorded().values?.content ?? '{}')).toEqual(values);
  });
});

describe('when the helm binary is missing', () => {
  it('throws HelmNotFoundError telling how to point at helm, and cleans up the values file', async () => {
    const t = await setup('ok', { binary: join(root, 'no-such-helm') });
    const err = await rejection(t.client.install({ ...release, values: VALUES, signal: signal() }));
    expect(err).toBeInstanceOf(HelmNotFoundError);
    expect(err).toMatchObject({ code: 'HELM_NOT_FOUND', binary: join(root, 'no-such-helm') });
    expect(String(err)).toMatch(/--helm-binary.*HELM_BINARY.*PATH/);
    expect(await t.leftoverValueFiles()).toEqual([]);
  });
});

describe('when the caller aborts', { timeout: 20_000 }, () => {
  it('sends SIGTERM to helm, rejects as canceled once helm exited, and removes the values file', async () => {
    const t = await setup('hang', { killGraceMs: 15_000 });
    const controller = new AbortController();
    const pending = rejection(t.client.install({ ...release, values: VALUES, signal: controller.signal }));
    await vi.waitFor(() => expect(t.started()).toBe(true), WAIT);

    controller.abort();
    const err = await pending;

    expect(err).toBeInstanceOf(HelmCommandError);
    expect(err).toMatchObject({ failure: { canceled: true, timedOut: false, forceKilled: false, command: 'install' } });
    expect(String(err)).toContain('helm install of release apps/web was canceled');
    expect(t.signals()).toEqual(['SIGTERM']);
    expect(existsSync(t.recorded().values?.file ?? '')).toBe(false);
    expect(await t.leftoverValueFiles()).toEqual([]);
  });

  it('SIGKILLs a helm that ignores SIGTERM once the grace period is over', async () => {
    const t = await setup('stubborn', { killGraceMs: 200 });
    const controller = new AbortController();
    const pending = rejection(t.client.uninstall({ release: 'web', namespace: 'apps', signal: controller.signal }));
    await vi.waitFor(() => expect(t.started()).toBe(true), WAIT);

    controller.abort();
    const err = await pending;

    expect(err).toMatchObject({ failure: { canceled: true, forceKilled: true, signal: 'SIGKILL' } });
    expect(t.signals()).toEqual(['SIGTERM']);
  });

  it('does not start helm at all when the signal is already aborted', async () => {
    const t = await setup('ok');
    const err = await rejection(t.client.install({ ...release, values: VALUES, signal: AbortSignal.abort() }));
    expect(err).toMatchObject({ code: 'HELM_COMMAND_FAILED', failure: { canceled: true } });
    expect(t.spawned).toEqual([]);
    expect(await t.leftoverValueFiles()).toEqual([]);
  });
});

describe('when helm runs past the timeout', { timeout: 20_000 }, () => {
  it('terminates it and reports timedOut', async () => {
    const t = await setup('hang', { timeoutMs: 500, killGraceMs: 15_000 });
    const err = await rejection(t.client.upgrade({ ...release, values: VALUES, signal: signal() }));
    expect(err).toMatchObject({ failure: { timedOut: true, canceled: false } });
    expect(String(err)).toContain('timed out');
    expect(await t.leftoverValueFiles()).toEqual([]);
  });
});

describe("with a call's own helm timeout", { timeout: 20_000 }, () => {
  it('passes --timeout to helm and stops helm the margin after it, not after the client default', async () => {
    const t = await setup('hang', { timeoutMs: 60_000, timeoutMarginMs: 300, killGraceMs: 15_000 });
    const started = performance.now();
    const err = await rejection(
      t.client.uninstall({ release: 'web', namespace: 'apps', timeoutMs: 200, signal: signal() }),
    );
    expect(err).toMatchObject({ failure: { timedOut: true, canceled: false, command: 'uninstall' } });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(t.recorded().args).toEqual(['uninstall', 'web', '--namespace', 'apps', '--timeout', '200ms']);
    expect(t.signals()).toEqual(['SIGTERM']);
  });

  it('passes it on install, upgrade and rollback too', async () => {
    const t = await setup('ok');
    const at = (flag: string) => t.recorded().args[t.recorded().args.indexOf(flag) + 1];
    await t.client.install({ ...release, values: VALUES, timeoutMs: 20_000, signal: signal() });
    expect(at('--timeout')).toBe('20s');
    await t.client.upgrade({ ...release, values: VALUES, timeoutMs: 120_000, signal: signal() });
    expect(at('--timeout')).toBe('2m');
    await t.client.rollback({ release: 'web', namespace: 'apps', revision: 1, timeoutMs: 90_000, signal: signal() });
    expect(at('--timeout')).toBe('1m30s');
  });
});

describe('version', { timeout: 20_000 }, () => {
  it.each([
    ['v3.22.0+gabc1234', 3, 22],
    ['v4.3.1', 4, 3],
  ])('parses %s', async (printed, major, minor) => {
    const t = await setup('version');
    const v = await createHelmCli({ ...t.options, env: { ...t.options.env, FAKE_VERSION: printed } }).version({
      signal: signal(),
    });
    expect(v).toEqual({ version: printed, major, minor });
    expect(() => checkHelmVersion(v)).not.toThrow();
    expect(t.recorded().args).toEqual(['version', '--short']);
  });

  it('reports a too-old helm through checkHelmVersion', async () => {
    const t = await setup('version');
    const v = await createHelmCli({ ...t.options, env: { ...t.options.env, FAKE_VERSION: 'v3.7.2+g663a896' } }).version(
      { signal: signal() },
    );
    expect(() => checkHelmVersion(v)).toThrow(HelmVersionError);
  });
});

describe('with a post-renderer', { timeout: 20_000 }, () => {
  const postRenderer = { command: '/bin/bash', args: ['/w/post-render/post-render.sh', '/w/post-render'] };
  const perCall = ['--owner-name=web', '--chart=nginx'];

  async function withHelm(version: string, overrides: Partial<HelmCliOptions> = {}) {
    const t = await setup('ok', { postRenderer, ...overrides });
    const options = { ...t.options, env: { ...t.options.env, FAKE_VERSION: version } };
    // As the composition root does: probe the version once, then give the client its major version.
    const { major } = await createHelmCli(options).version({ signal: signal() });
    return { ...t, client: createHelmCli({ ...options, major }) };
  }

  /** Every `--post-renderer-args` value, in order. */
  const rendererArgs = (args: readonly string[]) =>
    args.flatMap((a, i) => (a === '--post-renderer-args' ? [args[i + 1]] : []));
  const flag = (args: readonly string[], name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };

  describe('when helm is v3', () => {
    it('runs the command as --post-renderer with its fixed args followed by the per-call args', async () => {
      const t = await withHelm('v3.19.0+g1234');
      await t.client.install({ ...release, values: VALUES, postRenderArgs: perCall, signal: signal() });

      const { args } = t.recorded();
      expect(args[0]).toBe('install');
      expect(flag(args, '--post-renderer')).toBe('/bin/bash');
      expect(rendererArgs(args)).toEqual([...postRenderer.args, ...perCall]);
      expect(args).not.toContain('--force-conflicts');
    });

    it('learns the helm version once, then reuses it for later calls', async () => {
      const t = await withHelm('v3.19.0');
      await t.client.install({ ...release, values: VALUES, postRenderArgs: perCall, signal: signal() });
      await t.client.upgrade({ ...release, values: VALUES, postRenderArgs: ['--x=1'], signal: signal() });

      expect(t.spawned.map((a) => a[0])).toEqual(['version', 'install', 'upgrade']);
      const upgrade = t.recorded().args;
      expect(flag(upgrade, '--post-renderer')).toBe('/bin/bash');
      expect(rendererArgs(upgrade)).toEqual([...postRenderer.args, '--x=1']);
    });

    it('passes only the fixed args when the call brings none', async () => {
      const t = await withHelm('v3.19.0');
      await t.client.upgrade({ ...release, values: VALUES, signal: signal() });
      expect(rendererArgs(t.recorded().args)).toEqual(postRenderer.args);
    });
  });

  describe('a dry-run upgrade (the check of a release to adopt)', () => {
    it("renders helm's plain output: no post-renderer, no labels, no --force-conflicts, values in the file", async () => {
      for (const version of ['v3.19.0', 'v4.0.1']) {
        const t = await withHelm(version);
        const got = await t.client.dryRunUpgrade({ ...release, values: VALUES, signal: signal() });

        const { args, values } = t.recorded();
        expect(args.slice(0, 3)).toEqual(['upgrade', 'web', '/charts/web']);
        expect(args).toContain('--dry-run');
        expect(args).toContain('--reset-values');
        for (const absent of ['--post-renderer', '--labels', '--force-conflicts', '--server-side=false']) {
          expect(args).not.toContain(absent);
        }
        expect(args.join(' ')).not.toContain(SECRET);
        expect(values?.content).toBe(JSON.stringify(VALUES));
        expect(got).toMatchObject({ name: 'web', version: 2, manifest: 'kind: ConfigMap\n' });
        expect(await t.leftoverValueFiles()).toEqual([]);
      }
    });

    it('reads the cluster while rendering when asked (dryRunOption: server)', async () => {
      const t = await withHelm('v3.19.0');
      await t.client.dryRunUpgrade({ ...release, values: VALUES, dryRun: 'server', signal: signal() });
      expect(t.recorded().args).toContain('--dry-run=server');
    });
  });

  describe('when helm is v4', () => {
    it('names the plugin as --post-renderer with only the per-call args, and forces conflicts', async () => {
      const t = await withHelm('v4.0.1');
      await t.client.install({ ...release, values: VALUES, postRenderArgs: perCall, signal: signal() });

      const { args } = t.recorded();
      expect(flag(args, '--post-renderer')).toBe(POST_RENDER_PLUGIN);
      expect(POST_RENDER_PLUGIN).toBe('helm-operator-post-render');
      expect(rendererArgs(args)).toEqual(perCall);
      expect(args).toContain('--force-conflicts');
    });

    it('installs the post-renderer as a postrenderer/v1 plugin in the client HELM_DATA_HOME', async () => {
      const t = await withHelm('v4.0.1');
      await t.client.install({ ...release, values: VALUES, postRenderArgs: perCall, signal: signal() });

      const dataHome = t.recorded().env.HELM_DATA_HOME ?? '';
      expect(dataHome.startsWith(t.workDir)).toBe(true);
      const file = join(dataHome, 'plugins', POST_RENDER_PLUGIN, 'plugin.yaml');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('type: postrenderer/v1');
      const plugin = parseYaml(text) as {
        name: string;
        type: string;
        runtime: string;
        runtimeConfig: { platformCommand: { command: string; args: string[] }[] };
      };
      expect(plugin).toMatchObject({ name: POST_RENDER_PLUGIN, type: 'postrenderer/v1', runtime: 'subprocess' });
      expect(plugin.runtimeConfig.platformCommand).toEqual([
        { command: postRenderer.command, args: postRenderer.args },
      ]);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    });

    // helm 4.3 refuses `--force` on a release it applies server-side: "cannot use server-side apply and force
    // replace together", so every forced rollback after a failed upgrade failed.
    it('turns force into --force-conflicts on upgrade and rollback, never --force', async () => {
      const t = await withHelm('v4.0.1');
      await t.client.upgrade({ ...release, values: VALUES, force: true, postRenderArgs: perCall, signal: signal() });
      const upgrade = t.recorded().args;
      expect(upgrade).not.toContain('--force');
      expect(upgrade.filter((a) => a === '--force-conflicts')).toHaveLength(1);
      expect(flag(upgrade, '--post-renderer')).toBe(POST_RENDER_PLUGIN);

      await t.client.rollback({ ...release, revision: 1, force: true, signal: signal() });
      const rollback = t.recorded().args;
      expect(rollback).not.toContain('--force');
      expect(rollback).toContain('--force-conflicts');
    });
  });

  describe('when helm is v3', () => {
    it('passes force as --force on upgrade and rollback', async () => {
      const t = await withHelm('v3.19.0');
      await t.client.upgrade({ ...release, values: VALUES, force: true, signal: signal() });
      expect(t.recorded().args).toContain('--force');
      await t.client.rollback({ ...release, revision: 1, force: true, signal: signal() });
      expect(t.recorded().args).toContain('--force');
      expect(t.recorded().args).not.toContain('--force-conflicts');
    });
  });
});

describe('without a post-renderer', { timeout: 20_000 }, () => {
  it('never spawns helm version for install, and passes no post-renderer flags', async () => {
    const t = await setup('ok');
    await t.client.install({ ...release, values: VALUES, postRenderArgs: ['--x=1'], signal: signal() });
    expect(t.spawned.map((a) => a[0])).toEqual(['install']);
    expect(t.recorded().args).not.toContain('--post-renderer');
    expect(t.recorded().args).not.toContain('--post-renderer-args');
    expect(t.recorded().args).not.toContain('--force-conflicts');
  });

  it('forces conflicts once a version call has shown helm v4', async () => {
    const t = await setup('ok');
    const options = { ...t.options, env: { ...t.options.env, FAKE_VERSION: 'v4.1.0' } };
    const { major } = await createHelmCli(options).version({ signal: signal() });
    const client = createHelmCli({ ...options, major });
    await client.install({ ...release, values: VALUES, signal: signal() });
    expect(t.recorded().args).toContain('--force-conflicts');
    expect(existsSync(join(t.recorded().env.HELM_DATA_HOME ?? '', 'plugins'))).toBe(false);
  });
});

describe('the helm major version', { timeout: 20_000 }, () => {
  it('is an input: install and upgrade refuse to run without it, and never spawn helm version', async () => {
    const t = await setup('ok', { postRenderer: { command: '/pr', args: [] } });
    const { major: _major, ...withoutMajor } = t.options;
    const client = createHelmCli(withoutMajor);
    for (const call of [client.install, client.upgrade]) {
      const err = await rejection(call({ ...release, values: VALUES, signal: signal() }));
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err)).toMatch(/needs the helm major version.*createHelmCli\(\{ major \}\)/);
    }
    expect(t.spawned).toEqual([]);
    expect(await t.leftoverValueFiles()).toEqual([]);
  });

  it('is not needed by the other commands', async () => {
    const t = await setup('ok');
    const { major: _major, ...withoutMajor } = t.options;
    const client = createHelmCli(withoutMajor);
    await client.uninstall({ ...release, signal: signal() });
    await client.rollback({ ...release, signal: signal() });
    expect(t.spawned.map((a) => a[0])).toEqual(['uninstall', 'rollback']);
  });

  it('must be a positive integer', () => {
    expect(() => createHelmCli({ binary: 'helm', workDir: '/w', major: 0 })).toThrow(ConfigError);
    expect(() => createHelmCli({ binary: 'helm', workDir: '/w', major: 3.5 })).toThrow(ConfigError);
  });
});

describe('for the scaffolder (isolated: false)', { timeout: 20_000 }, () => {
  it("passes the user's environment through, HELM_* included, and creates no helm homes", async () => {
    const t = await setup('ok', { isolated: false });
    await t.client.create({ name: 'web', dir: '/charts', signal: signal() });
    const { args, env } = t.recorded();
    expect(args).toEqual(['create', '/charts/web']);
    expect(env).toMatchObject({ HELM_NAMESPACE: 'wrong', HELM_KUBECONTEXT: 'wrong', KEPT: 'yes', NO_COLOR: '1' });
    expect(env.HELM_DRIVER).toBeUndefined();
    expect(env.HELM_CACHE_HOME).toBeUndefined();
    expect(existsSync(t.workDir)).toBe(false);
  });

  it('returns the rendered manifest of helm template', async () => {
    const t = await setup('ok', { isolated: false });
    const out = await t.client.template({
      chart: '/c',
      release: 'release-name',
      namespace: 'default',
      includeCrds: true,
      signal: signal(),
    });
    expect(out).toBe('done');
    expect(t.recorded().args).toEqual(['template', 'release-name', '/c', '--namespace', 'default', '--include-crds']);
  });

  it('renders against the cluster with the client’s post-renderer and validation, as an install would (the warm-up)', async () => {
    const t = await setup('ok', { postRenderer: { command: '/pr', args: ['--socket=/s'] }, openApiValidation: false });
    await t.client.template({
      chart: '/c',
      release: 'warm-up',
      namespace: 'apps',
      validate: true,
      postRenderArgs: ['--owner-name=warm-up'],
      signal: signal(),
    });
    expect(t.recorded().args).toEqual([
      'template',
      'warm-up',
      '/c',
      '--namespace',
      'apps',
      '--validate',
      '--disable-openapi-validation',
      '--post-renderer',
      '/pr',
      '--post-renderer-args',
      '--socket=/s',
      '--post-renderer-args',
      '--owner-name=warm-up',
    ]);
    // Offline (the scaffolder's): neither.
    await t.client.template({ chart: '/c', release: 'x', namespace: 'apps', signal: signal() });
    expect(t.recorded().args).toEqual(['template', 'x', '/c', '--namespace', 'apps']);
  });

  it('pulls and builds dependencies with the expected argv', async () => {
    const t = await setup('ok', { isolated: false });
    await t.client.pull({ chart: 'bitnami/nginx', version: '1.2.3', destDir: '/tmp/pull', signal: signal() });
    expect(t.recorded().args).toEqual([
      'pull',
      'bitnami/nginx',
      '--untar',
      '--untardir',
      '/tmp/pull',
      '--version=1.2.3',
    ]);
    await t.client.dependencyBuild({ chartDir: '/charts/web', signal: signal() });
    expect(t.recorded().args).toEqual(['dependency', 'build', '/charts/web']);
  });

  it('hides a repository password from the argv it shows and from errors', async () => {
    const t = await setup('echo-fail', { isolated: false });
    const repo = 'https://bob:s3cr3t-pw@charts.example.com';
    const err = await rejection(t.client.pull({ chart: 'web', repo, destDir: '/tmp/pull', signal: signal() }));
    expect(err).toBeInstanceOf(HelmCommandError);
    expect(t.recorded().args).toContain(`--repo=${repo}`);
    expect(t.spawned[0]).toContain('--repo=https://bob:<redacted>@charts.example.com');
    expect(inspect(err, { depth: 10 }) + String(err)).not.toContain('s3cr3t-pw');
  });
});

describe('client-side OpenAPI validation and the API server warnings', { timeout: 20_000 }, () => {
  const warning = 'I1201 warnings.go:107] "Warning: unknown field \\"spec.notAField\\""\n';

  it('keeps helm validating unless told otherwise, and then passes --disable-openapi-validation', async () => {
    const keep = await setup('ok');
    await keep.client.install({ ...release, values: VALUES, signal: signal() });
    expect(keep.recorded().args).not.toContain('--disable-openapi-validation');

    const off = await setup('ok', { openApiValidation: false });
    await off.client.install({ ...release, values: VALUES, signal: signal() });
    expect(off.recorded().args).toContain('--disable-openapi-validation');
    await off.client.upgrade({ ...release, values: VALUES, signal: signal() });
    expect(off.recorded().args).toContain('--disable-openapi-validation');
  });

  it('returns the unknown fields that a successful helm printed on stderr', async () => {
    const t = await setup('ok', { openApiValidation: false });
    const options = { ...t.options, env: { ...t.options.env, FAKE_STDERR: warning } };
    const r = await createHelmCli(options).upgrade({ ...release, values: VALUES, signal: signal() });
    expect(r.version).toBe(2);
    expect(r.unknownFields).toEqual([{ field: 'spec.notAField', objects: [] }]);
  });

  it('returns no unknown fields when helm printed none', async () => {
    const t = await setup('ok');
    const r = await t.client.install({ ...release, values: VALUES, signal: signal() });
    expect(r).not.toHaveProperty('unknownFields');
  });
});
