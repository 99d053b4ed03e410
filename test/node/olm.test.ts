// `helm-operator olm install | status | uninstall` on the real node, with OLM built from its Go module
// (hack/olm/build-olm.sh: the binaries, an image of them loaded into the node, crds.yaml and olm.yaml rendered from
// the module's deploy/chart with that image) and handed to the CLI as HELM_OPERATOR_OLM_MANIFESTS, the setting a
// machine without a network uses. install waits for OLM's operators and its packageserver (an aggregated API served
// from a pod), status reports every object healthy, uninstall leaves no object, namespace or cluster-wide object
// that was not there before. Between the two, operator-sdk's OLM tutorial on a scaffolded project: `make docker-build
// docker-push bundle bundle-build bundle-push` to the node's registry at 0.0.1 (BUNDLE_IMG derived from IMG, no edit),
// `run bundle` (the CSV Succeeded, OLM's operator pod Ready, the sample CR Deployed by it), 0.0.2 built and pushed and
// `run bundle-upgrade` (CSV and operator pod replaced, the release neither reinstalled nor upgraded), the CR deleted
// with its release, and `cleanup PACKAGE` leaving no CSV, CRD, catalog or pod. Skips, with the reason, where the
// machine cannot run a node. Run by `make node-test`; prints the time of each step.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { machineFlags } from '../support/container.js';
import { ROOT } from '../support/operator.js';
import { CommandFailedError, NODE_BIN, NPM, run } from '../support/run.js';

const node = inject('realNode');
const VERSION = 'v0.31.0';
const IMAGE = `localhost/helm-operator-ts/olm:${VERSION}`;
/** OLM's opm image (operator-registry's cmd/opm): the catalog operator's --opmImage, so run bundle's index image. */
const OPM_IMAGE = 'localhost/helm-operator-ts/opm:v1.59.0';
const OPERAND_IMAGE = 'docker.io/library/debian:bookworm-slim';
const POLL = { timeout: 180_000, interval: 1_000 } as const;
/** Cluster-wide things OLM creates (some through its operators, not its manifests): all must be gone after. */
const CLUSTER_KINDS = 'namespaces,customresourcedefinitions,clusterroles,clusterrolebindings,apiservices';

describe.skipIf(node.skip !== undefined)(`olm install, status, uninstall on a real node ${node.skip ?? ''}`, () => {
  const work = mkdtempSync(join(tmpdir(), 'node-olm-'));
  const env = {
    ...process.env,
    PATH: `${NODE_BIN}:${process.env.PATH}`,
    KUBECONFIG: node.kubeconfig,
    HELM_BIN: node.helm,
    HELM_OPERATOR_OLM_MANIFESTS: join(work, 'manifests'),
  };
  const kubectl = (...args: string[]) => run(node.kubectl, args, { env });
  const cli = (...args: string[]) => run(process.execPath, [join(ROOT, 'dist/cmd/main.js'), ...args], { env });
  const clusterWide = async () => new Set((await kubectl('get', CLUSTER_KINDS, '-o', 'name')).split('\n'));
  const timings: [string, number][] = [];
  const timed = async <T>(step: string, f: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await f();
    } finally {
      timings.push([step, (performance.now() - t0) / 1000]);
    }
  };
  afterAll(async () => {
    for (const [step, s] of timings) process.stderr.write(`olm on the real node: ${step}: ${s.toFixed(1)} s\n`);
    // A failed test may leave OLM: take it out (uninstall says so when there is nothing).
    await cli('olm', 'uninstall', '--timeout=3m').catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  const script = join(ROOT, 'hack/olm/build-olm.sh');
  let before = new Set<string>();

  it('installs OLM built from its module and reports it healthy', { timeout: 1_500_000 }, async () => {
    // The binaries (make node-test starts this build in the background, so here it is usually done or under way).
    await timed('OLM binaries (hack/olm/build-olm.sh)', () => run('bash', [script], { env, inheritStderr: true }));
    await timed('OLM image', () => run('bash', [script, 'image', IMAGE], { env, inheritStderr: true }));
    await timed('image loaded into the node', () =>
      run('bash', [join(ROOT, 'hack/testenv.sh'), 'load-image', IMAGE, node.dir], { env }),
    );
    await run('bash', [script, 'manifests', IMAGE, env.HELM_OPERATOR_OLM_MANIFESTS], {
      env: { ...env, OLM_OPM_IMAGE: OPM_IMAGE },
    });
    before = await clusterWide();

    const installed = await timed('olm install', () => cli('olm', 'install', `--version=${VERSION}`, '--timeout=5m'));
    expect(installed).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+STATUS$/m);
    expect(installed).toMatch(/^olm-operator\s+olm\s+Deployment\s+Installed, 1 available$/m);

    const status = await timed('olm status', () => cli('olm', 'status'));
    for (const line of [
      /^olm-operator\s+olm\s+Deployment\s+Installed, 1 available$/m,
      /^catalog-operator\s+olm\s+Deployment\s+Installed, 1 available$/m,
      /^packageserver\s+olm\s+ClusterServiceVersion\s+Installed, Succeeded$/m,
      /^subscriptions\.operators\.coreos\.com\s+CustomResourceDefinition\s+Installed$/m,
    ]) {
      expect(status).toMatch(line);
    }
    expect(status).not.toMatch(/not ready|Not installed/);
    // The packageserver's aggregated API answers through the API server.
    expect(await kubectl('get', 'packagemanifests', '-n', 'olm', '-o', 'name')).toBe('');
  });

  it("runs a scaffolded project's bundle with OLM, upgrades it and cleans it up", { timeout: 1_500_000 }, async () => {
    await timed('opm image (hack/olm/build-olm.sh opm-image)', () =>
      run('bash', [script, 'opm-image', OPM_IMAGE], { env, inheritStderr: true }),
    );
    await timed('opm and operand images loaded into the node', async () => {
      for (const i of [OPM_IMAGE, OPERAND_IMAGE])
        await run('bash', [join(ROOT, 'hack/testenv.sh'), 'load-image', i, node.dir], { env });
    });
    const planeEnv = readFileSync(join(node.dir, 'env'), 'utf8');
    const setting = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(planeEnv)?.[1] ?? '';
    const registry = setting('TESTENV_REGISTRY');
    const name = `ob${Math.random().toString(36).slice(2, 8)}`;
    const [ns, samples] = [`${name}-op`, `${name}-samples`];
    const project = join(work, 'proj');
    const bin = join(work, 'bin');
    mkdirSync(project);
    mkdirSync(bin);
    // The CLI under test as `helm-operator` on PATH (the Makefile's bundle target runs it), and packed for the image.
    writeFileSync(
      join(bin, 'helm-operator'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/cmd/main.js')}" "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const tgz = join(work, (await run(NPM, ['pack', '--pack-destination', work, '--silent'], { cwd: ROOT })).trim());
    const penv = {
      ...env,
      PATH: `${bin}:${env.PATH}`,
      HELM_BINARY: node.helm,
      CONTAINERS_REGISTRIES_CONF: setting('TESTENV_REGISTRIES_CONF'),
    };
    const sh = (cmd: string, ...args: string[]) => run(cmd, args, { cwd: project, env: penv });
    await sh(
      'helm-operator',
      'init',
      '--plugins=helm',
      `--domain=${name}.example.com`,
      `--project-name=${name}`,
      `--helm-chart=${join(ROOT, 'test/fixtures/charts/node-workload')}`,
    );
    const flags = ['--network=host', ...(await machineFlags())].join(' ');
    // Only IMG and VERSION: BUNDLE_IMG is derived from IMG's repository (no Makefile edit).
    const release = (version: string) =>
      sh(
        'make',
        '--no-print-directory',
        'docker-build',
        'docker-push',
        'bundle',
        'bundle-build',
        'bundle-push',
        'CONTAINER_TOOL=podman',
        `KUBECTL=${node.kubectl}`,
        `HELM_OPERATOR_PACKAGE=${tgz}`,
        `CONTAINER_BUILD_FLAGS=${flags}`,
        `IMG=${registry}/${name}/${name}:v${version}`,
        `VERSION=${version}`,
      );
    const bundle = (version: string) => `${registry}/${name}/${name}-bundle:v${version}`;
    const images = [1, 2].flatMap((v) => [`${registry}/${name}/${name}:v0.0.${v}`, bundle(`0.0.${v}`)]);
    try {
      await timed('make docker-build docker-push bundle bundle-build bundle-push (0.0.1)', () => release('0.0.1'));
      await kubectl('create', 'namespace', ns);
      // The registry pod pulls bundles over plain HTTP from the node's registry; the opm image is on the node only.
      const registryFlags = ['-n', ns, '--use-http', '--image-pull-policy=IfNotPresent', '--timeout=5m'];
      const made = await timed('run bundle to CSV Succeeded', () =>
        cli('run', 'bundle', bundle('0.0.1'), ...registryFlags),
      );
      expect(made).toMatch(new RegExp(`^csv\\s+${ns}/${name}\\.v0\\.0\\.1 \\(Succeeded\\)$`, 'm'));
      expect(made).toMatch(new RegExp(`^catalogsource\\s+${ns}/${name}-catalog$`, 'm'));
      expect(made).toMatch(new RegExp(`^subscription\\s+${ns}/${name}-v0-0-1-sub$`, 'm'));
      expect(await kubectl('get', 'csv', `${name}.v0.0.1`, '-n', ns, '-o', 'jsonpath={.status.phase}')).toBe(
        'Succeeded',
      );
      const deployment = `deployment/${name}-controller-manager`;
      const operatorPods = async () =>
        JSON.parse(await kubectl('get', 'pods', '-n', ns, '-l', 'control-plane=controller-manager', '-o', 'json')) as {
          items: {
            metadata: { name: string };
            spec: { containers: { image: string }[] };
            status: { containerStatuses?: { ready: boolean }[] };
          }[];
        };
      await timed('operator pod (started by OLM) Ready', () =>
        kubectl('rollout', 'status', deployment, '-n', ns, '--timeout=180s'),
      );
      const first = (await operatorPods()).items;
      expect(first.map((p) => [p.spec.containers[0]?.image, p.status.containerStatuses?.[0]?.ready])).toEqual([
        [`${registry}/${name}/${name}:v0.0.1`, true],
      ]);

      const group = `charts.${name}.example.com`;
      const cr = async () =>
        JSON.parse(await kubectl('get', `workloads.${group}`, 'workload-sample', '-n', samples, '-o', 'json')) as {
          status?: {
            conditions?: { type: string; status: string }[];
            deployedRelease?: { revision?: number };
            lastHandledReconcileAt?: string;
          };
        };
      const deployed = async () => (await cr()).status?.conditions?.find((c) => c.type === 'Deployed')?.status;
      const releaseSecrets = () => kubectl('get', 'secrets', '-n', samples, '-l', 'owner=helm', '-o', 'name');
      await kubectl('create', 'namespace', samples);
      await timed('sample CR Deployed by the operator OLM started', async () => {
        await sh(node.kubectl, 'apply', '-k', 'config/samples', '-n', samples);
        await vi.waitFor(async () => expect(await deployed()).toBe('True'), POLL);
      });
      expect((await cr()).status?.deployedRelease?.revision).toBe(1);
      expect((await releaseSecrets()).trim()).toBe('secret/sh.helm.release.v1.workload-sample.v1');

      await timed('make docker-build docker-push bundle bundle-build bundle-push (0.0.2)', () => release('0.0.2'));
      const upgraded = await timed('run bundle-upgrade to the new CSV Succeeded', () =>
        cli('run', 'bundle-upgrade', bundle('0.0.2'), ...registryFlags),
      );
      expect(upgraded).toMatch(new RegExp(`^csv\\s+${ns}/${name}\\.v0\\.0\\.2 \\(Succeeded\\)$`, 'm'));
      await timed('old CSV gone, operator pod replaced and Ready', async () => {
        await vi.waitFor(async () => {
          expect((await kubectl('get', 'csv', '-n', ns, '-o', 'name')).trim()).toBe(
            `clusterserviceversion.operators.coreos.com/${name}.v0.0.2`,
          );
          const pods = (await operatorPods()).items;
          expect(pods.map((p) => [p.spec.containers[0]?.image, p.status.containerStatuses?.[0]?.ready])).toEqual([
            [`${registry}/${name}/${name}:v0.0.2`, true],
          ]);
          expect(first.map((p) => p.metadata.name)).not.toContain(pods[0]?.metadata.name);
        }, POLL);
      });
      // The new operator has reconciled the CR (it recorded a reconcile request) and left its release alone.
      const at = new Date().toISOString();
      await timed('new operator reconciled the CR (a reconcile request handled)', async () => {
        await kubectl(
          'annotate',
          `workloads.${group}`,
          'workload-sample',
          '-n',
          samples,
          `helm.sdk.operatorframework.io/reconcile-requested-at=${at}`,
        );
        await vi.waitFor(async () => expect((await cr()).status?.lastHandledReconcileAt).toBe(at), POLL);
      });
      expect(await deployed()).toBe('True');
      expect((await cr()).status?.deployedRelease?.revision).toBe(1);
      expect((await releaseSecrets()).trim()).toBe('secret/sh.helm.release.v1.workload-sample.v1');

      await timed('CR deleted and its release uninstalled', async () => {
        await kubectl('delete', `workloads.${group}`, 'workload-sample', '-n', samples, '--timeout=120s');
        expect((await releaseSecrets()).trim()).toBe('');
      });
      const cleaned = await timed('cleanup PACKAGE', () => cli('cleanup', name, '-n', ns, '--timeout=3m'));
      for (const gone of [
        `Subscription/${name}-v0-0-1-sub`,
        `CustomResourceDefinition/workloads.${group}`,
        `ClusterServiceVersion/${name}.v0.0.2`,
        `CatalogSource/${name}-catalog`,
        'OperatorGroup/operator-sdk-og',
      ]) {
        expect(cleaned).toContain(`deleted ${gone}\n`);
      }
      // Nothing of the package is left: in its namespace, and cluster-wide (OLM's ClusterRoles for the CSV and its
      // CRD, the CRD's APIService).
      await timed('nothing of the package left', () =>
        vi.waitFor(async () => {
          const left = await kubectl(
            'get',
            'pods,jobs,configmaps,subscriptions,csv,catalogsources,installplans,operatorgroups',
            '-n',
            ns,
            '-o',
            'name',
          );
          expect(left.trim()).toBe('configmap/kube-root-ca.crt');
          const cluster = await kubectl(
            'get',
            'customresourcedefinitions,clusterroles,clusterrolebindings,apiservices',
            '-o',
            'name',
          );
          expect(cluster.split('\n').filter((n) => n.includes(name))).toEqual([]);
          // OLM's copies of the CSV in every namespace (an AllNamespaces OperatorGroup) are gone too.
          expect(await kubectl('get', 'csv', '--all-namespaces', '-o', 'name')).not.toContain(name);
        }, POLL),
      );
    } finally {
      // What a failed step left (cleanup is idempotent): the CRDs go while the operator still runs, so the CR's
      // finalizer is released and its namespace can go.
      await cli('cleanup', name, '-n', ns, '--timeout=3m').catch(() => undefined);
      await kubectl('delete', 'namespace', ns, samples, '--ignore-not-found', '--timeout=120s').catch(() => undefined);
      await run('podman', ['rmi', '--force', ...images]).catch(() => undefined);
    }
  });

  it('uninstalls OLM, leaving nothing', { timeout: 300_000 }, async () => {
    await timed('olm uninstall', () => cli('olm', 'uninstall', '--timeout=3m'));
    const after = await clusterWide();
    expect([...after].filter((n) => !before.has(n))).toEqual([]);
    expect([...after].filter((n) => /namespace\/(olm|operators)$|operators\.coreos\.com/.test(n))).toEqual([]);
    const gone = await cli('olm', 'status').then(
      () => 'exit 0',
      (err: unknown) => (err instanceof CommandFailedError ? err.stderr.trim() : String(err)),
    );
    expect(gone).toMatch(/no existing installation found.*\(OLM_NOT_INSTALLED\)$/);
  });
});
