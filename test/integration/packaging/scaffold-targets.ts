// The scaffolded Makefile's targets with the CLI a user installed from the tarball and an npm registry that has no
// package (a stand-in answering 404 to everything, each request recorded): generate-rbac, bundle, run (started, then
// stopped with SIGINT as Ctrl-C stops it), docker-build (a fake container tool; the CLI it packed into bin/image/ is
// installed as the image's cli stage installs it) and undeploy, with helm-operator on PATH; then with the tarball
// installed into the project's bin/ instead; then with no CLI at all, where every target says what to set.
// Registered by install.test.ts inside its describe (its tests need that file's clean-clone install and project).
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lockDefaultPorts } from '../../support/default-ports.js';
import { ROOT } from '../../support/operator.js';
import { launchOperator } from '../../support/operator-process.js';
import { type EmptyRegistry, emptyRegistry, type InstalledCli } from '../../support/packed-cli.js';
import { CommandFailedError, NPM, run } from '../../support/run.js';

export interface TargetsContext {
  readonly installed: InstalledCli;
  /** The project install.test.ts scaffolded with the installed CLI (its CRD applied). */
  readonly project: string;
  readonly work: string;
  /** The user's environment: the installed CLI on PATH, the plane's kubeconfig, kubectl and helm. */
  readonly env: NodeJS.ProcessEnv;
}

const TARBALL = 'helm-operator-ts-0.1.0.tgz';
/** What every failed npm install or pack of the package says to do. */
const ADVICE = [
  'npm could not get helm-operator-ts@0.1.0',
  'set HELM_OPERATOR_PACKAGE=path/to/helm-operator-ts-X.Y.Z.tgz',
  'or put helm-operator on PATH',
];

export function scaffoldTargets(context: () => TargetsContext): void {
  let registry: EmptyRegistry | undefined;
  let tool = '';
  const toolLog = () => join(context().work, 'container-tool.log');

  beforeAll(async () => {
    registry = await emptyRegistry();
    // CONTAINER_TOOL's stand-in: records its arguments and the build context's bin/image/, builds nothing.
    tool = join(context().work, 'fake-container-tool');
    writeFileSync(tool, '#!/bin/sh\necho "args: $*" >> "$TOOL_LOG"\nls bin/image >> "$TOOL_LOG"\n');
    chmodSync(tool, 0o755);
  });
  afterAll(async () => {
    await registry?.close();
  });

  /** The user's environment with npm pointed at the empty registry; `onPath: false` drops the installed CLI. */
  const noRegistry = (onPath = true): NodeJS.ProcessEnv => {
    const { env, installed } = context();
    const path = (env.PATH ?? '').split(':').filter((d) => onPath || d !== join(installed.prefix, 'bin'));
    return { ...env, PATH: path.join(':'), npm_config_registry: registry?.url, TOOL_LOG: toolLog() };
  };
  const make = (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
    run('make', ['--no-print-directory', ...args], { cwd, env });
  const packedFiles = async (tgz: string) => (await run('tar', ['tzf', tgz])).split('\n').filter(Boolean).sort();

  /** make docker-build with the fake tool: what bin/image/ held when it ran, and the tarball there. */
  async function dockerBuild(env: NodeJS.ProcessEnv): Promise<{ stdout: string; tgz: string }> {
    const { project } = context();
    rmSync(toolLog(), { force: true });
    const stdout = await make(project, env, 'docker-build', `CONTAINER_TOOL=${tool}`, 'IMG=example.com/op:v1');
    expect(readFileSync(toolLog(), 'utf8')).toBe(`args: build -t example.com/op:v1 .\n${TARBALL}\n`);
    return { stdout, tgz: join(project, 'bin/image', TARBALL) };
  }

  it('runs generate-rbac, bundle, run, docker-build and undeploy with the CLI on PATH and no registry', async () => {
    const { project, env, installed, work } = context();
    const offline = noRegistry();
    expect(await make(project, offline, 'generate-rbac')).toMatch(/^wrote config\/rbac\/role\.yaml/m);
    expect(await make(project, offline, 'bundle', 'IMG=example.com/op:v1')).toMatch(/^bundle is valid$/m);
    expect(readdirSync(join(project, 'bundle/manifests')).some((f) => f.endsWith('.clusterserviceversion.yaml'))).toBe(
      true,
    );
    // The bundle and catalog images follow IMG's repository and VERSION (operator-sdk's IMAGE_TAG_BASE), with no
    // other variable set; catalog-build needs opm, which is not built yet, and says so.
    rmSync(toolLog(), { force: true });
    const argsTool = join(work, 'fake-args-tool'); // records its arguments only (no build context to list)
    writeFileSync(argsTool, '#!/bin/sh\necho "args: $*" >> "$TOOL_LOG"\n');
    chmodSync(argsTool, 0o755);
    await make(
      project,
      offline,
      'bundle-build',
      'bundle-push',
      'catalog-push',
      `CONTAINER_TOOL=${argsTool}`,
      'IMG=example.com/op:v1',
    );
    expect(
      readFileSync(toolLog(), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('args: ')),
    ).toEqual([
      'args: build -f bundle.Dockerfile -t example.com/op-bundle:v0.0.1 .',
      'args: push example.com/op-bundle:v0.0.1',
      'args: push example.com/op-catalog:v0.0.1',
    ]);
    const noOpm = await make(project, offline, 'catalog-build', 'IMG=example.com/op:v1').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(noOpm).toBeInstanceOf(CommandFailedError);
    expect((noOpm as CommandFailedError).stderr).toContain('catalog-build needs opm (operator-registry');

    // make run binds helm-operator's default ports, as the quickstart's does: one of the two at a time.
    const release = await lockDefaultPorts();
    try {
      const op = launchOperator({
        root: ROOT,
        entrypoint: { command: 'make', args: ['--no-print-directory', 'run'], cwd: project },
        env: offline,
        logFile: join(work, 'make-run.log'),
      });
      await expect.poll(() => op.logged('Watching resource').length, { timeout: 60_000, interval: 100 }).toBe(1);
      process.kill(-op.pid, 'SIGINT'); // Ctrl-C: to the whole group, make and helm-operator
      const stopped = await Promise.race([op.exited.then(() => true), delay(30_000, false, { ref: false })]);
      if (!stopped) await op.killGroup();
      expect(stopped, op.output().slice(-3000)).toBe(true);
      await op.stop();
      expect(op.logged('Stopped')).toHaveLength(1);
      expect(op.output()).toMatch(/^helm-operator run$/m); // make ran the CLI on PATH, installing nothing
    } finally {
      release();
    }

    // docker-build packs the CLI on PATH (its own installed copy) into bin/image/: the files npm packed in the clone.
    const { stdout, tgz } = await dockerBuild(offline);
    expect(stdout).toMatch(/^helm-operator pack --destination=bin\/image$/m);
    expect(await packedFiles(tgz)).toEqual(await packedFiles(installed.tgz));
    // The image's cli stage: a plain npm install of that tarball (its dependencies from the real registry).
    const image = join(work, 'image-cli');
    mkdirSync(image);
    const { npm_config_prefix: _p, ...plain } = env;
    await run(NPM, ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', tgz], {
      cwd: image,
      env: plain,
    });
    expect(await run(join(image, 'node_modules/.bin/helm-operator'), ['version'], { env: plain })).toMatch(
      /^helm-operator-ts version: "0\.1\.0"/,
    );

    const undeploy = await make(project, offline, 'undeploy', 'UNDEPLOY_TIMEOUT=1m');
    expect(undeploy).toMatch(/helm-operator undeploy --timeout=1m -f -/);
    expect(registry?.requests).toEqual([]);
  });

  it("installs the tarball into the project's bin/ (make helm-operator), whose CLI the targets then run", async () => {
    const { project, env, installed } = context();
    // The package's dependencies come from the real registry here; the package itself is the tarball.
    await make(project, env, 'helm-operator', `HELM_OPERATOR_PACKAGE=${installed.tgz}`);
    expect(await run(join(project, 'bin/helm-operator'), ['version'], { env })).toMatch(/^helm-operator-ts version/);
    // Installed once: the file target is up to date, so a second make installs nothing.
    expect(await make(project, env, '-n', 'helm-operator')).toMatch(/up to date|Nothing to be done|^$/);
    // Without the CLI on PATH and with no registry: docker-build packs bin/'s copy.
    const { stdout, tgz } = await dockerBuild(noRegistry(false));
    expect(stdout).toMatch(new RegExp(`^${join(project, 'bin/helm-operator')} pack --destination=bin/image$`, 'm'));
    expect(await packedFiles(tgz)).toEqual(await packedFiles(installed.tgz));
    expect(registry?.requests).toEqual([]);
  });

  it('with no CLI installed, or a package pinned, and a registry without the package, says what to set', async () => {
    const { installed, work, project } = context();
    const bare = join(work, 'bare');
    mkdirSync(bare);
    await run(
      join(installed.prefix, 'bin/helm-operator'),
      ['init', '--plugins=helm', '--domain=example.com', '--project-name=bare'],
      {
        cwd: bare,
        env: context().env,
      },
    );
    const failure = async (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) => {
      const err = await make(cwd, env, ...args).then(
        () => new Error(`make ${args.join(' ')} succeeded`),
        (e: unknown) => e,
      );
      if (!(err instanceof CommandFailedError)) throw err;
      return err.stderr;
    };
    for (const target of ['run', 'generate-rbac', 'bundle', 'undeploy', 'docker-build']) {
      const stderr = await failure(bare, noRegistry(false), target, `CONTAINER_TOOL=${tool}`);
      for (const advice of ADVICE) expect(stderr, `make ${target}`).toContain(advice);
      expect(existsSync(join(bare, 'bin/helm-operator')), `make ${target}`).toBe(false);
    }
    expect(registry?.requests).toContain('GET /helm-operator-ts');
    // A pinned version is packed by npm even with a CLI on PATH: the registry's answer stops the build.
    rmSync(toolLog(), { force: true });
    const pinned = await failure(
      project,
      noRegistry(),
      'docker-build',
      'HELM_OPERATOR_VERSION=0.1.0',
      `CONTAINER_TOOL=${tool}`,
    );
    for (const advice of ADVICE) expect(pinned).toContain(advice);
    expect(existsSync(toolLog())).toBe(false);
  });
}
