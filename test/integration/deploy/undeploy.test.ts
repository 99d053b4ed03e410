// Taking an operator out of a cluster strands nothing: `helm-operator undeploy` deletes the CRs first and waits
// while the operator still runs, so every release is uninstalled before the operator, RBAC and CRDs go; when the
// operator is already gone, undeploy refuses (deleting nothing) and `helm-operator cleanup` frees the CRs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import {
  crClient,
  createTestCrd,
  type OperatorProcess,
  ROOT,
  releaseRevisions,
  runCleanups,
  startOperator,
  type TestKind,
  watchesYaml,
} from '../../support/operator.js';

const POLL = { timeout: 60_000, interval: 250 } as const;
const MAIN = join(ROOT, 'dist/cmd/main.js');

/** The test cluster's first helm. */
const testHelm = () => Object.values(inject('cluster').helms)[0] ?? 'helm';

/** Runs the built CLI against the test cluster; returns its exit code and output. */
function cli(args: string[], input?: string, env: Record<string, string> = {}) {
  const cluster = inject('cluster');
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    input: input ?? '',
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: cluster.kubeconfig, HELM_BINARY: testHelm(), ...env },
    timeout: 120_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('undeploy and cleanup', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns1: string;
  let ns2: string;
  let work: string;
  const cleanups: (() => Promise<unknown>)[] = [];

  /** The deployment as `kubectl kustomize` would render it: the CRD, a ServiceAccount and a ClusterRole. */
  const deployment = async (saName: string, roleName: string) => {
    const crd = await kube.apiext.readCustomResourceDefinition({ name: `${kind.plural}.${kind.group}` });
    await kube.core.createNamespacedServiceAccount({ namespace: ns1, body: { metadata: { name: saName } } });
    await kube.rbac.createClusterRole({ body: { metadata: { name: roleName }, rules: [] } });
    cleanups.unshift(() => kube.rbac.deleteClusterRole({ name: roleName }).catch(() => undefined));
    const docs = [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crd.metadata?.name },
        spec: crd.spec,
      },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: saName, namespace: ns1 } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: roleName } },
    ];
    const file = join(work, `${saName}.yaml`);
    writeFileSync(file, docs.map((d) => `---\n${JSON.stringify(d)}\n`).join(''));
    return file;
  };

  beforeAll(async () => {
    kube = testKube();
    work = mkdtempSync(join(tmpdir(), 'undeploy-'));
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  });

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  async function setup(kindName: string) {
    const [k, deleteCrd] = await createTestCrd(kube, kindName);
    kind = k;
    const [a, deleteA] = await createTestNamespace(kube, 'undeploy-a');
    const [b, deleteB] = await createTestNamespace(kube, 'undeploy-b');
    ns1 = a;
    ns2 = b;
    cleanups.push(deleteCrd, deleteA, deleteB);
    const op = startOperator({ watches: watchesYaml([kind]), env: { WATCH_NAMESPACE: `${ns1},${ns2}` } });
    cleanups.push(() => op.kill());
    for (const [ns, name] of [
      [ns1, 'one'],
      [ns2, 'two'],
    ] as const)
      await crClient(kube, kind, ns).create(name, {});
    for (const [ns, name] of [
      [ns1, 'one'],
      [ns2, 'two'],
    ] as const) {
      await expect
        .poll(async () => (await crClient(kube, kind, ns).condition(name, 'Deployed'))?.status, POLL)
        .toBe('True');
    }
    return op;
  }

  const operandsGone = async () => {
    for (const [ns, name] of [
      [ns1, 'one'],
      [ns2, 'two'],
    ] as const) {
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect(await isGone(() => kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns }))).toBe(
        true,
      );
      expect(await isGone(() => kube.core.readNamespacedConfigMap({ name: `${name}-nginx`, namespace: ns }))).toBe(
        true,
      );
    }
  };

  describe('when the operator is running', () => {
    it('deletes the CRs first, waits for their releases to be uninstalled, then the rest', async () => {
      await setup('Undeployed');
      const file = await deployment('op-sa', `${ns1}-op-role`);
      const r = cli(['undeploy', '-f', file, '--timeout=90s']);
      expect(r.out).toContain('deleting 2 custom resources first');
      expect(r.code).toBe(0);
      await operandsGone();
      // A CRD goes once the API server's finalizer has run (asynchronous, slower on a loaded plane).
      await expect
        .poll(
          () => isGone(() => kube.apiext.readCustomResourceDefinition({ name: `${kind.plural}.${kind.group}` })),
          POLL,
        )
        .toBe(true);
      expect(await isGone(() => kube.core.readNamespacedServiceAccount({ name: 'op-sa', namespace: ns1 }))).toBe(true);
      expect(await isGone(() => kube.rbac.readClusterRole({ name: `${ns1}-op-role` }))).toBe(true);
      // The order is in the output: every CR finalized before the CRD was deleted.
      expect(r.out.indexOf('every custom resource is gone')).toBeLessThan(r.out.indexOf('CustomResourceDefinition'));
    });
  });

  describe('when the operator was deleted before its CRs', () => {
    let op: OperatorProcess;

    it('undeploy times out, deletes nothing and points at cleanup', async () => {
      op = await setup('Stranded');
      await op.kill();
      const file = await deployment('stranded-sa', `${ns1}-stranded-role`);
      const r = cli(['undeploy', '-f', file, '--timeout=3s']);
      expect(r.code).toBe(1);
      expect(r.out).toContain('helm-operator cleanup');
      expect(r.out).toContain('UNDEPLOY_TIMEOUT');
      // Deleted (deletionTimestamp set) but held by the finalizer; CRD and ServiceAccount untouched.
      const cr = await crClient(kube, kind, ns1).get('one');
      expect((cr.metadata as { deletionTimestamp?: string }).deletionTimestamp).toBeDefined();
      expect(
        (await kube.core.readNamespacedServiceAccount({ name: 'stranded-sa', namespace: ns1 })).metadata?.name,
      ).toBe('stranded-sa');
    });

    it('cleanup --dry-run shows the plan and changes nothing', async () => {
      const watches = join(work, 'watches.yaml');
      writeFileSync(watches, watchesYaml([kind]));
      const r = cli(['cleanup', `--watches-file=${watches}`, '--dry-run']);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`Stranded ${ns1}/one (being deleted): uninstall release one`);
      expect(r.out).toContain('nothing done');
      expect(await releaseRevisions(kube, ns1, 'one')).toEqual(['1:deployed']);
    });

    it('cleanup without a terminal refuses unless --yes (with the helm named by --helm-binary)', async () => {
      const watches = join(work, 'watches.yaml');
      const refused = cli(['cleanup', `--watches-file=${watches}`]);
      expect(refused.code).toBe(1);
      expect(refused.out).toContain('pass --yes');
      // HELM_BINARY points nowhere: only the flag can find helm, as it does for `run`.
      const r = cli(['cleanup', `--watches-file=${watches}`, '--yes', `--helm-binary=${testHelm()}`], undefined, {
        HELM_BINARY: join(work, 'no-such-helm'),
      });
      expect(r.code).toBe(0);
      expect(r.out).toContain('freed 2 custom resources');
      for (const [ns, name] of [
        [ns1, 'one'],
        [ns2, 'two'],
      ] as const) {
        await vi.waitFor(async () => expect(await isGone(() => crClient(kube, kind, ns).get(name))).toBe(true), POLL);
      }
      await operandsGone();
    });
  });
});
