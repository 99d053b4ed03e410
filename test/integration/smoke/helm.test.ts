// Proves the helm binaries built from Go modules work against the test cluster: a chart made by `helm create`
// installs, upgrades and uninstalls, and the API shows each step. Runs once per helm major the run provides.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import { run } from '../../support/run.js';

const helms = Object.entries(inject('cluster').helms);

describe.each(helms)('%s against the test cluster', (_label, helm) => {
  let kube: TestKube;
  let ns: string;
  let deleteNs: () => Promise<void>;
  let work: string;
  let chart: string;
  const release = 'smoke';
  const helmArgs = (...args: string[]) => [...args, '--kubeconfig', kube.kubeconfig, '--namespace', ns];

  beforeAll(async () => {
    kube = testKube();
    [ns, deleteNs] = await createTestNamespace(kube, 'smoke-helm');
    work = mkdtempSync(join(tmpdir(), 'smoke-helm-'));
    await run(helm, ['create', 'demo'], { cwd: work });
    chart = join(work, 'demo');
    // A kubeVersion constraint proves the API server reports a real semver (the build's version ldflags).
    const chartYaml = join(chart, 'Chart.yaml');
    writeFileSync(chartYaml, `${readFileSync(chartYaml, 'utf8')}kubeVersion: ">=1.30.0-0"\n`);
  });

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
    await deleteNs?.();
  });

  it('installs a chart whose objects then exist in the API', async () => {
    const out = await run(helm, helmArgs('install', release, chart, '--output', 'json'));
    const rel = JSON.parse(out) as { name: string; version: number; info: { status: string } };
    expect(rel).toMatchObject({ name: release, version: 1, info: { status: 'deployed' } });

    const deploy = await kube.apps.readNamespacedDeployment({ name: 'smoke-demo', namespace: ns });
    expect(deploy.spec?.replicas).toBe(1);
    expect(deploy.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect(deploy.metadata?.annotations?.['meta.helm.sh/release-name']).toBe(release);
    const svc = await kube.core.readNamespacedService({ name: 'smoke-demo', namespace: ns });
    expect(svc.spec?.ports?.[0]?.port).toBe(80);
    await kube.core.readNamespacedServiceAccount({ name: 'smoke-demo', namespace: ns });
    // Helm stores its release record as a Secret in the release namespace.
    const secrets = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' });
    expect(secrets.items.map((s) => s.metadata?.name)).toEqual([`sh.helm.release.v1.${release}.v1`]);
  });

  it('upgrades the release, and the objects change', async () => {
    const values = join(work, 'upgrade-values.yaml');
    writeFileSync(values, 'replicaCount: 3\nservice:\n  port: 8080\n');
    const out = await run(helm, helmArgs('upgrade', release, chart, '--values', values, '--output', 'json'));
    expect(JSON.parse(out)).toMatchObject({ version: 2, info: { status: 'deployed' } });

    const deploy = await kube.apps.readNamespacedDeployment({ name: 'smoke-demo', namespace: ns });
    expect(deploy.spec?.replicas).toBe(3);
    const svc = await kube.core.readNamespacedService({ name: 'smoke-demo', namespace: ns });
    expect(svc.spec?.ports?.[0]?.port).toBe(8080);
  });

  it('uninstalls the release, and its objects are removed', async () => {
    await run(helm, helmArgs('uninstall', release));
    await expect
      .poll(() => isGone(() => kube.apps.readNamespacedDeployment({ name: 'smoke-demo', namespace: ns })), {
        timeout: 30_000,
      })
      .toBe(true);
    await expect
      .poll(() => isGone(() => kube.core.readNamespacedService({ name: 'smoke-demo', namespace: ns })), {
        timeout: 30_000,
      })
      .toBe(true);
    // The release records are gone too (helm v4 dropped `list --all`, so read them from the API for both).
    const secrets = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' });
    expect(secrets.items).toEqual([]);
  });
});
