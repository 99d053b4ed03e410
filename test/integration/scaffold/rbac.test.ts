// The manager Role that `create api` generates is sufficient and not broader than needed: the real operator,
// authenticated as a ServiceAccount bound to exactly that Role, installs, upgrades, repairs drift (with its event)
// and uninstalls the sample chart; and the same scenario fails when any one of the essential rules is missing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import { crClient, ROOT, runCleanups, startOperator, type TestKind } from '../../support/operator.js';
import { newProject, type Project } from '../../support/project.js';
import { boundServiceAccount } from '../../support/service-account.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
const rand = () => Math.random().toString(36).slice(2, 8);

describe('the generated manager Role', () => {
  let kube: TestKube;
  let project: Project;
  let kind: TestKind;
  let ns: string;
  let kubeconfig: string;
  let rules: Rule[];
  const role = `mgr-${rand()}`;
  const cleanups: (() => Promise<unknown>)[] = [];

  /** Makes the ServiceAccount's ClusterRole exactly `rules`. */
  const grant = async (granted: Rule[]) => {
    await kube.rbac.replaceClusterRole({ name: role, body: { metadata: { name: role }, rules: granted } });
  };

  /** Install, upgrade, drift repair and uninstall of CR `name`, each step with `timeout`. Throws at the first failure. */
  async function scenario(name: string, timeout: number) {
    const poll = { timeout, interval: 250 };
    const crs = crClient(kube, kind, ns);
    const op = startOperator({ watches: project.watches(), env: { WATCH_NAMESPACE: ns, KUBECONFIG: kubeconfig } });
    try {
      await crs.create(name, { replicaCount: 1 });
      await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, poll).toBe('True');
      await crs.setSpec(name, { replicaCount: 2 });
      const deployment = { name: `${name}-nginx`, namespace: ns };
      await expect
        .poll(async () => (await kube.apps.readNamespacedDeployment(deployment)).spec?.replicas, poll)
        .toBe(2);
      await kube.apps.deleteNamespacedDeployment(deployment);
      await expect
        .poll(
          async () => (await kube.apps.readNamespacedDeployment(deployment).catch(() => undefined))?.spec?.replicas,
          poll,
        )
        .toBe(2);
      await expect
        .poll(async () => {
          const events = await kube.core.listNamespacedEvent({
            namespace: ns,
            fieldSelector: `involvedObject.name=${name}`,
          });
          return events.items.some((e) => e.reason === 'DriftCorrected');
        }, poll)
        .toBe(true);
      await crs.delete(name);
      await vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), poll);
      expect(await isGone(() => kube.core.readNamespacedService({ name: `${name}-nginx`, namespace: ns }))).toBe(true);
    } finally {
      await op.stop();
    }
  }

  beforeAll(async () => {
    kube = testKube();
    project = newProject('rbac');
    cleanups.push(async () => project.remove());
    const domain = `r${rand()}.example.com`;
    project.cli('init', `--domain=${domain}`, `--project-name=rbac-${rand()}`);
    project.cli(
      'create',
      'api',
      '--group=demo',
      '--version=v1alpha1',
      '--kind=Shop',
      `--helm-chart=${join(ROOT, 'charts/nginx')}`,
    );
    const group = `demo.${domain}`;
    kind = { group, version: 'v1alpha1', kind: 'Shop', plural: 'shops' } as TestKind;
    const crdFile = join(project.dir, 'config/crd/bases', `${group}_shops.yaml`);
    project.kubectl('apply', '--server-side', '-f', crdFile);
    cleanups.push(async () => project.kubectl('delete', '--ignore-not-found', '-f', crdFile));
    project.kubectl('wait', '--for=condition=Established', '--timeout=60s', `crd/shops.${group}`);
    const [n, deleteNs] = await createTestNamespace(kube, 'rbac');
    ns = n;
    cleanups.push(deleteNs);
    rules = (parse(readFileSync(join(project.dir, 'config/rbac/role.yaml'), 'utf8')) as { rules: Rule[] }).rules;
    const account = { role, namespace: ns, serviceAccount: 'manager', dir: project.dir };
    kubeconfig = await boundServiceAccount(kube, account, cleanups);
    await grant(rules);
  });

  afterAll(async () => {
    // CRs left by the failing variants: with the full Role back, a last operator uninstalls and frees them.
    await grant(rules);
    const crs = crClient(kube, kind, ns);
    const op = startOperator({ watches: project.watches(), env: { WATCH_NAMESPACE: ns, KUBECONFIG: kubeconfig } });
    const left = (await kube.custom.listNamespacedCustomObject({ ...kind, namespace: ns })) as {
      items: { metadata: { name: string } }[];
    };
    for (const cr of left.items) await crs.delete(cr.metadata.name);
    for (const cr of left.items) {
      await vi.waitFor(async () => expect(await isGone(() => crs.get(cr.metadata.name))).toBe(true), {
        timeout: 60_000,
      });
    }
    await op.stop();
    await runCleanups(cleanups);
  });

  it('grants exact verbs, never a wildcard', () => {
    for (const r of rules) expect(r.verbs, JSON.stringify(r)).not.toContain('*');
    expect(rules).toContainEqual({
      apiGroups: ['apps'],
      resources: ['deployments'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    });
  });

  it('is enough to install, upgrade, repair drift and uninstall', async () => {
    await scenario('full', 60_000);
  });

  // Each of these rules is removed in turn; the same scenario must then fail.
  const essential: [string, (r: Rule) => boolean][] = [
    ['the chart kind apps/deployments', (r) => r.resources.includes('deployments')],
    ['helm release storage (secrets)', (r) => r.resources.includes('secrets')],
    ['the CR status subresource', (r) => r.resources.some((x) => x.endsWith('/status'))],
    ['events (DriftCorrected and the rest)', (r) => r.resources.includes('events')],
  ];
  it.each(essential)('makes the scenario fail without %s', async (_what, match) => {
    const without = rules
      .map((r) => (match(r) ? { ...r, resources: r.resources.filter((x) => !match({ ...r, resources: [x] })) } : r))
      .filter((r) => r.resources.length > 0);
    expect(JSON.stringify(without)).not.toBe(JSON.stringify(rules));
    await grant(without);
    try {
      await expect(scenario(`without-${rand()}`, 15_000)).rejects.toThrow();
    } finally {
      await grant(rules);
    }
  });
});
