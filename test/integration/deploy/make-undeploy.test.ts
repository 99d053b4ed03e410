// A generated project's own `make deploy` / `make undeploy`: deploy applies config/default (namespace, RBAC,
// Deployment, CRD); with live CRs being served, undeploy leaves no CR, no release and no operand behind, then removes
// the rest. The in-cluster operator cannot run here (no kubelet), so the real operator runs as a local process in
// its place, as it would in the Deployment.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestNamespace, isGone, testKube } from '../../support/kube.js';
import { crClient, ROOT, releaseRevisions, runCleanups, startOperator, type TestKind } from '../../support/operator.js';
import { newProject } from '../../support/project.js';

const POLL = { timeout: 60_000, interval: 250 } as const;
const rand = () => Math.random().toString(36).slice(2, 8);

describe('a generated project, deployed and undeployed with make', () => {
  const kube = testKube();
  const cluster = inject('cluster');
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await runCleanups(cleanups);
  });

  it('undeploys with live CRs and leaves no CR, release or operand behind', async () => {
    const project = newProject('make-undeploy');
    cleanups.push(async () => project.remove());
    const name = `mu${rand()}`;
    const domain = `${name}.example.com`;
    project.cli('init', `--domain=${domain}`, `--project-name=${name}`);
    project.cli(
      'create',
      'api',
      '--group=demo',
      '--version=v1alpha1',
      '--kind=Shop',
      `--helm-chart=${join(ROOT, 'charts/nginx')}`,
    );
    const make = (...args: string[]) =>
      execFileSync('make', args, {
        cwd: project.dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          KUBECONFIG: cluster.kubeconfig,
          KUBECTL: cluster.kubectl ?? 'kubectl',
          HELM_OPERATOR: `${process.execPath} ${join(ROOT, 'dist/cmd/main.js')}`,
          UNDEPLOY_TIMEOUT: '90s',
        },
      });
    make('deploy', 'IMG=registry.example.com/shop-operator:v0.1.0');
    const system = `${name}-system`;
    cleanups.push(() => kube.core.deleteNamespace({ name: system }).catch(() => undefined));
    const deployment = await kube.apps.readNamespacedDeployment({
      name: `${name}-controller-manager`,
      namespace: system,
    });
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('registry.example.com/shop-operator:v0.1.0');

    const kind: TestKind = { group: `demo.${domain}`, version: 'v1alpha1', kind: 'Shop', plural: 'shops' };
    const namespaces: string[] = [];
    for (const prefix of ['mu-a', 'mu-b']) {
      const [ns, del] = await createTestNamespace(kube, prefix);
      namespaces.push(ns);
      cleanups.push(del);
    }
    const op = startOperator({ watches: project.watches(), env: { WATCH_NAMESPACE: namespaces.join(',') } });
    cleanups.unshift(() => op.stop());
    for (const ns of namespaces) await crClient(kube, kind, ns).create('shop', {});
    for (const ns of namespaces) {
      await expect
        .poll(async () => (await crClient(kube, kind, ns).condition('shop', 'Deployed'))?.status, POLL)
        .toBe('True');
    }

    const out = make('undeploy');
    expect(out).toContain('deleting 2 custom resources first');
    expect(out).toContain('every custom resource is gone');
    for (const ns of namespaces) {
      expect(await releaseRevisions(kube, ns, 'shop')).toEqual([]);
      expect(await isGone(() => kube.apps.readNamespacedDeployment({ name: 'shop-nginx', namespace: ns }))).toBe(true);
      expect(await isGone(() => kube.core.readNamespacedService({ name: 'shop-nginx', namespace: ns }))).toBe(true);
    }
    expect(await isGone(() => kube.apiext.readCustomResourceDefinition({ name: `shops.${kind.group}` }))).toBe(true);
    expect(
      await isGone(() => kube.apps.readNamespacedDeployment({ name: `${name}-controller-manager`, namespace: system })),
    ).toBe(true);
    expect(await isGone(() => kube.rbac.readClusterRole({ name: `${name}-manager-role` }))).toBe(true);
  });
});
