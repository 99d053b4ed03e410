// The CLI as a user installs it: `npm pack` of this repository, `npm install -g --prefix <tmp>` of the tarball, and
// then, from that prefix only, `helm-operator init` and `create api` on a fixture chart, and `helm-operator run`
// against the plane until the sample CR is Deployed. Cleans up its prefix, project, CRD and namespace.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestNamespace, isGone, testKube } from '../../support/kube.js';
import { ROOT, runCleanups } from '../../support/operator.js';
import { launchOperator } from '../../support/operator-process.js';
import { NODE_BIN, NPM, run } from '../../support/run.js';

const POLL = { timeout: 90_000, interval: 250 } as const;
const rand = () => Math.random().toString(36).slice(2, 8);

describe('the packed CLI, installed into a prefix', { timeout: 240_000 }, () => {
  const cluster = inject('cluster');
  const kube = testKube();
  const cleanups: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(join(tmpdir(), 'install-'));
  const prefix = join(work, 'prefix');
  const project = join(work, 'proj');
  const domain = `i${rand()}.example.com`;
  // The installed binary first on PATH, then the Node it needs (the machine's may be older) and helm.
  const env = {
    ...process.env,
    PATH: `${join(prefix, 'bin')}:${NODE_BIN}:${dirname(Object.values(cluster.helms)[0] ?? 'helm')}:${process.env.PATH}`,
    KUBECONFIG: cluster.kubeconfig,
    HELM_BINARY: Object.values(cluster.helms)[0] ?? 'helm',
  };
  const cli = (...args: string[]) => run(join(prefix, 'bin', 'helm-operator'), args, { cwd: project, env });
  const kubectl = (...args: string[]) => run(cluster.kubectl ?? 'kubectl', args, { cwd: project, env });
  let installMs = 0;
  let tgz = '';

  beforeAll(async () => {
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
    tgz = join(work, (await run(NPM, ['pack', '--pack-destination', work, '--silent'], { cwd: ROOT })).trim());
    const t0 = performance.now();
    await run(NPM, ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tgz], { env });
    installMs = performance.now() - t0;
    mkdirSync(project, { recursive: true });
  });

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  it('installs a helm-operator command that needs nothing of this repository', async () => {
    expect(existsSync(join(prefix, 'bin', 'helm-operator'))).toBe(true);
    expect(await cli('version')).toMatch(/^helm-operator-ts version: "0\.1\.0"/);
    expect(installMs).toBeGreaterThan(0);
    process.stderr.write(`npm install -g of the packed CLI: ${(installMs / 1000).toFixed(1)} s\n`);
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

  it("installs the pinned CLI into the project's bin/ with make helm-operator, as operator-sdk's Makefile does", async () => {
    await run('make', ['--no-print-directory', 'helm-operator', `HELM_OPERATOR_PACKAGE=${tgz}`], { cwd: project, env });
    expect(await run(join(project, 'bin', 'helm-operator'), ['version'], { env })).toMatch(/^helm-operator-ts version/);
    // Installed once: the file target is up to date, so a second make installs nothing.
    expect(await run('make', ['--no-print-directory', '-n', 'helm-operator'], { cwd: project, env })).toMatch(
      /up to date|Nothing to be done|^$/,
    );
  });
});
