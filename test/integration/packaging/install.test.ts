// The CLI as a new user installs it: a clean clone of this repository's HEAD commit (so uncommitted changes are NOT
// in it: commit before running this test), the README's Install block (marked `<!-- install -->`) run word for word
// there with npm's global prefix in a temp folder, the tarball's files listed with tar; then, from that prefix only,
// `init`, `create api` and `run` until the sample CR is Deployed; then every target of the scaffolded Makefile with an
// npm registry that serves nothing (a local stand-in answering 404, see scaffold-targets in this file), and the
// message that says what to set when no CLI is installed. Prints the clone, pack and install times to stderr.
// Cleans up its clone, prefix, projects, CRD, namespace and registry stand-in.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestNamespace, isGone, testKube } from '../../support/kube.js';
import { ROOT, runCleanups } from '../../support/operator.js';
import { launchOperator } from '../../support/operator-process.js';
import { type InstalledCli, installFromCleanClone, userEnv } from '../../support/packed-cli.js';
import { run } from '../../support/run.js';
import { scaffoldTargets } from './scaffold-targets.js';

const POLL = { timeout: 90_000, interval: 250 } as const;
const rand = () => Math.random().toString(36).slice(2, 8);
/** A clone, `npm ci` of every dependency and tsc take most of a minute on 2 cores. */
const INSTALL_TIMEOUT_MS = 300_000;

describe('the CLI packed from a clean clone and installed by the README', { timeout: 240_000 }, () => {
  const cluster = inject('cluster');
  const kube = testKube();
  const cleanups: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(join(tmpdir(), 'install-'));
  const prefix = join(work, 'prefix');
  const project = join(work, 'proj');
  const domain = `i${rand()}.example.com`;
  const helm = Object.values(cluster.helms)[0] ?? 'helm';
  const kubectlBin = cluster.kubectl ?? 'kubectl';
  // The installed binary first on PATH, then Node, kubectl and the plane's helm.
  const env = userEnv(prefix, { KUBECONFIG: cluster.kubeconfig, HELM_BINARY: helm }, [
    dirname(kubectlBin),
    dirname(helm),
  ]);
  const cli = (...args: string[]) => run(join(prefix, 'bin', 'helm-operator'), args, { cwd: project, env });
  const kubectl = (...args: string[]) => run(kubectlBin, args, { cwd: project, env });
  let installed: InstalledCli;

  beforeAll(async () => {
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
    installed = await installFromCleanClone(join(work, 'clone'), prefix);
    for (const [what, value] of Object.entries(installed.figures)) process.stderr.write(`${what}: ${value}\n`);
    mkdirSync(project, { recursive: true });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  it('packs a tarball that holds the bin, and installs a helm-operator command that needs nothing of this repository', async () => {
    const files = (await run('tar', ['tzf', installed.tgz])).split('\n').filter(Boolean);
    expect(files).toContain('package/dist/cmd/main.js');
    expect(files).toContain('package/package.json');
    expect(files.filter((f) => !f.startsWith('package/dist/'))).toEqual(
      expect.arrayContaining(['package/package.json', 'package/README.md']),
    );
    expect(files.filter((f) => /^package\/(src|test|hack|node_modules)\//.test(f))).toEqual([]);
    const manifest = JSON.parse(await run('tar', ['xzf', installed.tgz, '-O', 'package/package.json'])) as {
      bin?: Record<string, string>;
    };
    expect(manifest.bin).toEqual({ 'helm-operator': 'dist/cmd/main.js' });
    expect(existsSync(join(prefix, 'bin', 'helm-operator'))).toBe(true);
    // The block's last command, `helm-operator version`, found the installed CLI on PATH.
    expect(installed.stdout).toMatch(/^helm-operator-ts version: "0\.1\.0"/m);
    expect(await cli('version')).toMatch(/^helm-operator-ts version: "0\.1\.0"/);
  });

  it('scaffolds a project from a chart and runs it until the sample is Deployed', async () => {
    await cli('init', '--plugins=helm', `--domain=${domain}`, `--project-name=p${rand()}`);
    await cli('create', 'api', `--helm-chart=${join(ROOT, 'charts/nginx')}`);
    const crd = join('config/crd/bases', `charts.${domain}_nginxes.yaml`);
    await kubectl('apply', '--server-side', '-f', crd);
    cleanups.push(() => kubectl('delete', '--ignore-not-found', '-f', crd));
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', `crd/nginxes.charts.${domain}`);
    const [ns, deleteNs] = await createTestNamespace(kube, 'install');
    cleanups.push(deleteNs);

    const op = launchOperator({
      root: ROOT,
      entrypoint: { command: join(prefix, 'bin', 'helm-operator'), args: ['run'], cwd: project },
      args: ['--metrics-bind-address=0', '--health-probe-bind-address=0'],
      env: { ...env, WATCH_NAMESPACE: ns },
      logFile: join(work, 'operator.log'),
    });
    cleanups.push(() => op.stop());
    const samples = readdirSync(join(project, 'config/samples')).filter((f) => f !== 'kustomization.yaml');
    await kubectl('apply', '-n', ns, '-f', join('config/samples', samples[0] ?? ''));
    const target = { group: `charts.${domain}`, version: 'v1alpha1', plural: 'nginxes', namespace: ns };
    const deployed = async () => {
      const cr = (await kube.custom.getNamespacedCustomObject({ ...target, name: 'nginx-sample' })) as {
        status?: { state?: string };
      };
      return cr.status?.state;
    };
    await expect.poll(deployed, POLL).toBe('Deployed');
    // Deleted while the operator runs, so that its release is uninstalled and the finalizer removed.
    await kube.custom.deleteNamespacedCustomObject({ ...target, name: 'nginx-sample' });
    await expect
      .poll(() => isGone(() => kube.custom.getNamespacedCustomObject({ ...target, name: 'nginx-sample' })), POLL)
      .toBe(true);
  });

  scaffoldTargets(() => ({ installed, project, work, env }));
});
