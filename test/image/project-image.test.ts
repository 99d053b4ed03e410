// A scaffolded project's image, built and run for real: `npm pack` of this repository, `helm-operator init` and
// `create api` on the sample chart, then the project's own `make docker-build` (podman) with the packed CLI as
// HELM_OPERATOR_PACKAGE, nothing tagged by hand; the image run as a container against the local control plane in the
// shape of the project's config/manager Deployment (its args, read-only root, the image's uid, a tmpfs on /tmp), its
// CRD installed with `make install` and its sample Deployed. Run by `make image-test` (hack/image-test.sh builds dist/
// first); writes the build time and image size to IMAGE_TEST_REPORT. Cleans up its containers, namespace, CRD, image
// tag and temp dirs.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { boundAddress } from '../support/addresses.js';
import {
  type Container,
  type ImageUnderTest,
  imageUnderTest,
  machineFlags,
  podShape,
  reportFigures,
  runOnce,
  startContainer,
} from '../support/container.js';
import { createTestNamespace, isGone, testKube } from '../support/kube.js';
import { crClient, ROOT, runCleanups } from '../support/operator.js';
import { CommandFailedError, NODE_BIN, NPM, run } from '../support/run.js';

const POLL = { timeout: 90_000, interval: 250 } as const;
const GRACE_SECONDS = 30;
/** A cold layer cache builds helm from Go modules: minutes on a small machine. */
const BUILD_TIMEOUT_MS = 20 * 60_000;
const rand = () => Math.random().toString(36).slice(2, 8);
const helmVersion = /^ARG HELM_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
const figures: Record<string, string | number> = {};

describe("a scaffolded project's image, built by its Makefile and run as a container", () => {
  const cluster = inject('cluster');
  const kube = testKube();
  const tool = imageUnderTest().tool;
  const cleanups: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(join(tmpdir(), 'project-image-'));
  const project = join(work, 'proj');
  const projectName = `image-test-${rand()}`;
  const domain = `p${rand()}.example.com`;
  const u: ImageUnderTest = { image: `localhost/${projectName}:image-test`, tool };
  const kind = { group: `charts.${domain}`, version: 'v1alpha1', kind: 'Nginx', plural: 'nginxes' };
  const kubectl = cluster.kubectl ?? 'kubectl';
  // npm and the machine's Node for `make docker-build` (npm pack), the plane's helm for `create api`.
  const helm = Object.values(cluster.helms)[0] ?? 'helm';
  const env = {
    ...process.env,
    PATH: `${NODE_BIN}:${dirname(helm)}:${process.env.PATH}`,
    KUBECONFIG: cluster.kubeconfig,
    HELM_BINARY: helm,
  };
  const cli = (...args: string[]) =>
    run(process.execPath, [join(ROOT, 'dist/cmd/main.js'), ...args], { cwd: project, env });
  const make = (...args: string[]) => run('make', ['--no-print-directory', ...args], { cwd: project, env });
  let ns = '';

  beforeAll(async () => {
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
    if (!existsSync(join(ROOT, 'dist/cmd/main.js'))) throw new Error('dist/ is missing: npm run build first');
    // The CLI as a registry would serve it: this repository, packed.
    const tgz = join(work, (await run(NPM, ['pack', '--pack-destination', work, '--silent'], { cwd: ROOT })).trim());
    mkdirSync(project);
    await cli('init', '--plugins=helm', `--domain=${domain}`, `--project-name=${projectName}`);
    await cli('create', 'api', `--helm-chart=${join(ROOT, 'charts/nginx')}`);

    cleanups.push(() => run(tool, ['rmi', '--force', u.image]).catch(() => undefined));
    const flags = ['--network=host', ...(await machineFlags())].join(' ');
    const t0 = performance.now();
    try {
      await make(
        'docker-build',
        `CONTAINER_TOOL=${tool}`,
        `IMG=${u.image}`,
        `HELM_OPERATOR_PACKAGE=${tgz}`,
        `CONTAINER_BUILD_FLAGS=${flags}`,
      );
    } catch (err) {
      // The build's own output, which run() keeps only the tail of.
      if (err instanceof CommandFailedError) throw new Error(`make docker-build failed:\n${err.stderr.slice(-6000)}`);
      throw err;
    }
    figures['scaffolded project: make docker-build (npm pack + build, this layer cache) (s)'] = Math.round(
      (performance.now() - t0) / 1000,
    );
    // bench/image-size.ts's first row: `| image | <uncompressed> | <compressed (gzip, as pushed)> |`.
    const sizes = await run(process.execPath, [join(ROOT, 'bench/image-size.ts'), tool, u.image]);
    const [, uncompressed, compressed] = /^\| \S+ \| ([\d.]+ MB) \| ([\d.]+ MB) \|$/m.exec(sizes) ?? [];
    figures['scaffolded project image size, uncompressed / compressed (gzip, as pushed)'] =
      `${uncompressed} / ${compressed}`;

    const [name, deleteNs] = await createTestNamespace(kube, 'project-image');
    ns = name;
    cleanups.push(deleteNs);
    // The kubeconfig, readable by the image's uid (the plane's own copy is root's, mode 0600).
    chmodSync(work, 0o755);
    copyFileSync(cluster.kubeconfig, join(work, 'kubeconfig'));
    chmodSync(join(work, 'kubeconfig'), 0o644);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    reportFigures(figures);
    await runCleanups(cleanups);
  });

  it("has no image of this repository's in its build: its bases are the Dockerfile's, the CLI its package", () => {
    const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
    expect(dockerfile).not.toMatch(/helm-operator-ts:/);
    // make docker-build packed exactly one CLI package into bin/image/, the only part of bin/ the context has.
    expect(readdirSync(join(project, 'bin/image'))).toEqual(['helm-operator-ts-0.1.0.tgz']);
  });

  it("ships the repository image's helm and the CLI on PATH, and runs as the image's numeric user", async () => {
    const version = await runOnce(u, ['--entrypoint', 'helm'], ['version', '--template', '{{.Version}}']);
    expect(version.trim()).toBe(helmVersion);
    expect((await runOnce(u, ['--entrypoint', 'helm-operator'], ['version'])).trim()).toMatch(
      /^helm-operator-ts version: "0\.1\.0"/,
    );
    expect((await run(tool, ['image', 'inspect', '--format', '{{.Config.User}}', u.image])).trim()).toBe('65532:65532');
  });

  it("installs its CRD with make install, then deploys its sample with the manager Deployment's args", async () => {
    const crdName = `${kind.plural}.${kind.group}`;
    await make('install', `KUBECTL=${kubectl}`);
    cleanups.push(() => run(kubectl, ['delete', 'crd', crdName, '--ignore-not-found', '--wait=false'], { env }));
    await run(kubectl, ['wait', '--for=condition=Established', '--timeout=60s', `crd/${crdName}`], { env });

    // The container the Deployment makes: its args (probe and metrics ports moved to free loopback ones, as the host
    // network is shared; the Lease in the test namespace, there being no pod namespace out of a cluster), a read-only
    // root with only /tmp writable, the image's uid, no capabilities, the kubeconfig as the service account's stand-in.
    const deployment = parseAllDocuments(readFileSync(join(project, 'config/manager/manager.yaml'), 'utf8'))
      .map((d) => d.toJS() as { kind?: string; spec?: { template: { spec: { containers: { args: string[] }[] } } } })
      .find((o) => o.kind === 'Deployment');
    const args = (deployment?.spec?.template.spec.containers[0]?.args ?? []).map((a) =>
      a.replace(/^(--(?:health-probe|metrics)-bind-address)=.*$/, '$1=127.0.0.1:0'),
    );
    expect(args).toContain('--leader-elect');
    const t0 = performance.now();
    const c: Container = await startContainer(
      u,
      podShape({ uid: 65532, kubeconfig: join(work, 'kubeconfig'), namespace: ns }),
      [...args, `--leader-election-namespace=${ns}`],
    );
    cleanups.push(() => c.remove());
    await vi.waitFor(async () => {
      const addr = boundAddress(await c.logs(), 'Serving health probes');
      if (!addr) throw new Error('the operator has not logged its health probe address yet');
      const res = await fetch(`http://${addr}/readyz`);
      if (res.status !== 200) throw new Error(`/readyz answered ${res.status}`);
    }, POLL);
    figures['scaffolded project: start to /readyz 200 (ms)'] = Math.round(performance.now() - t0);
    const status = await c.exec(['cat', '/proc/1/status']);
    expect(/^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/)).toEqual(Array(4).fill('65532'));
    expect(await c.inspect('{{.HostConfig.ReadonlyRootfs}}')).toBe('true');

    // The sample create api wrote, applied as a user would.
    const samples = readdirSync(join(project, 'config/samples')).filter((f) => f !== 'kustomization.yaml');
    expect(samples).toHaveLength(1);
    const sample = join(project, 'config/samples', samples[0] ?? '');
    const doc = parseAllDocuments(readFileSync(sample, 'utf8'))[0]?.toJS() as
      | { metadata?: { name?: string } }
      | undefined;
    const name = doc?.metadata?.name ?? '';
    expect(name).not.toBe('');
    const crs = crClient(kube, kind, ns);
    const t1 = performance.now();
    await run(kubectl, ['apply', '-n', ns, '-f', sample], { env });
    await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    figures['scaffolded project: sample CR apply to Deployed (ms)'] = Math.round(performance.now() - t1);
    // The release's objects: the chart's Deployment, Service and ConfigMap, and helm's record of the release.
    const at = { name: `${name}-nginx`, namespace: ns };
    const release = () => kube.apps.readNamespacedDeployment(at);
    expect((await release()).metadata?.labels?.['app.kubernetes.io/instance']).toBe(name);
    expect((await kube.core.readNamespacedService(at)).metadata?.name).toBe(at.name);
    expect((await kube.core.readNamespacedConfigMap(at)).metadata?.name).toBe(at.name);
    const records = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: `owner=helm,name=${name}` });
    expect(records.items.map((s) => s.metadata?.labels?.status)).toEqual(['deployed']);

    // Deleted while the operator runs: the release is uninstalled, then the operator stops cleanly.
    await crs.delete(name);
    await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
    await expect.poll(() => isGone(release), POLL).toBe(true);
    await c.stop(GRACE_SECONDS);
    expect(await c.inspect('{{.State.ExitCode}}'), (await c.logs()).slice(-3000)).toBe('0');
  });
});
