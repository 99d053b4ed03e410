// `helm-operator olm install | status | uninstall` on the real node, with OLM built from its Go module
// (hack/olm/build-olm.sh: the binaries, an image of them loaded into the node, crds.yaml and olm.yaml rendered from
// the module's deploy/chart with that image) and handed to the CLI as HELM_OPERATOR_OLM_MANIFESTS, the setting a
// machine without a network uses. install waits for OLM's operators and its packageserver (an aggregated API served
// from a pod), status reports every object healthy, uninstall leaves no object, namespace or cluster-wide object
// that was not there before. Skips, with the reason, where the machine cannot run a node. Run by `make node-test`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../support/operator.js';
import { CommandFailedError, NODE_BIN, run } from '../support/run.js';

const node = inject('realNode');
const VERSION = 'v0.31.0';
const IMAGE = `localhost/helm-operator-ts/olm:${VERSION}`;
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

  it('installs OLM built from its module, reports it healthy, and uninstalls it leaving nothing', {
    timeout: 1_500_000,
  }, async () => {
    const script = join(ROOT, 'hack/olm/build-olm.sh');
    // The binaries (make node-test starts this build in the background, so here it is usually done or under way).
    await timed('OLM binaries (hack/olm/build-olm.sh)', () => run('bash', [script], { env, inheritStderr: true }));
    await timed('OLM image', () => run('bash', [script, 'image', IMAGE], { env, inheritStderr: true }));
    await timed('image loaded into the node', () =>
      run('bash', [join(ROOT, 'hack/testenv.sh'), 'load-image', IMAGE, node.dir], { env }),
    );
    await run('bash', [script, 'manifests', IMAGE, env.HELM_OPERATOR_OLM_MANIFESTS], { env });
    const before = await clusterWide();

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
