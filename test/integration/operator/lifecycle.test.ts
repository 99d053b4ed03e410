// The operator's core loop against the real control plane and the real helm: install → Deployed, one upgrade per
// spec change, zero helm processes on idle periodic reconciles, and deletion that uninstalls and frees the CR.
import { beforeAll, describe, expect, it } from 'vitest';
import { establishedTo } from '../../support/connections.js';
import { isGone, type TestKube } from '../../support/kube.js';
import type { OperatorProcess, TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

interface Cr {
  metadata: { finalizers?: string[]; generation?: number };
  status?: {
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    deployedRelease?: { name: string; manifest: string };
  };
}

describe('the operator, for one CR through its life', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns: string;
  let op: OperatorProcess;
  const name = 'web';

  const getCr = async () =>
    (await kube.custom.getNamespacedCustomObject({ ...kind, namespace: ns, plural: kind.plural, name })) as Cr;
  const deployed = async () => (await getCr()).status?.conditions?.find((c) => c.type === 'Deployed');

  const f = useOperatorFixture({
    namespaces: ['op-life'],
    operator: () => ({ args: ['--reconcile-period=2s', '--zap-log-level=debug'] }),
  });
  beforeAll(() => {
    ({ kube, kind, ns, op } = f);
  });

  it('installs the release when the CR is created and reports Deployed with deployedRelease', async () => {
    // The warm-up leaves idle connections: the first CR's writes open none (each watch holds its own).
    await expect.poll(() => op.output().includes('"msg":"Starting workers"'), POLL).toBe(true);
    const port = Number(new URL(kube.server).port || 443);
    const connections = establishedTo(op.pid, port);
    expect(connections).toBeGreaterThan(2); // the informers' watches, and the warm-up's two idle ones
    await kube.custom.createNamespacedCustomObject({
      ...kind,
      namespace: ns,
      body: {
        apiVersion: `${kind.group}/${kind.version}`,
        kind: kind.kind,
        metadata: { name },
        spec: { replicaCount: 2 },
      },
    });
    await expect.poll(async () => (await deployed())?.status, { timeout: 60_000, interval: 250 }).toBe('True');
    const cr = await getCr();
    expect(cr.metadata.finalizers).toContain('helm.sdk.operatorframework.io/uninstall-release');
    expect(cr.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(await deployed()).toMatchObject({
      reason: 'InstallSuccessful',
      message: `nginx ${name} is deployed with 2 replica(s), serving on port 80.`,
    });
    expect(cr.status?.deployedRelease?.name).toBe(name);
    expect(cr.status?.deployedRelease?.manifest).toContain('kind: Deployment');
    const deploy = await kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns });
    expect(deploy.spec?.replicas).toBe(2);
    expect(op.helmCalls()).toEqual(['version', 'install']);
    // Before the workers started: one `helm template` of the chart (post-renderer included, nothing written), and
    // the informers of its three kinds listed, so the first install found them running.
    expect(op.allHelmCalls()).toEqual(['version', 'template', 'install']);
    const lines = op.output().split('\n');
    const at = (msg: string) => lines.findIndex((l) => l.includes(`"msg":"${msg}"`));
    expect(lines[at('Warmed up')]).toContain('"kinds":3,"connections":2');
    expect(establishedTo(op.pid, port)).toBe(connections);
    expect(at('Warmed up')).toBeLessThan(at('Starting workers'));
    expect(lines.filter((l) => l.includes('"msg":"Watching dependent resource"'))).toHaveLength(3);
    expect(at('Watching dependent resource')).toBeLessThan(at('Starting workers'));
    expect(await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: 'name=warm-up' })).toMatchObject({
      items: [],
    });
    const installed = op
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"Installed release"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(installed).toEqual([
      expect.objectContaining({
        controller: `${kind.kind.toLowerCase()}-controller`,
        namespace: ns,
        name,
        release: name,
        revision: 1,
        reconcileID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
    ]);
  });

  it('upgrades exactly once (revision 2) when the spec changes', async () => {
    // Read-modify-write, retried on a conflict: the operator writes the CR's status meanwhile (Ready turns True as
    // the Deployment's pods become ready on the plane's nodes).
    await f.crs.setSpec(name, { replicaCount: 3 });
    await expect
      .poll(
        async () => (await kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns })).spec?.replicas,
        {
          timeout: 60_000,
          interval: 250,
        },
      )
      .toBe(3);
    await expect.poll(async () => (await deployed())?.reason, { timeout: 30_000 }).toBe('UpgradeSuccessful');
    const secrets = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: `owner=helm,name=${name}` });
    expect(secrets.items.map((s) => s.metadata?.labels?.version).sort()).toEqual(['1', '2']);
    expect(op.helmCalls()).toEqual(['version', 'install', 'upgrade']);
  });

  it('spawns no helm process on idle periodic reconciles', async () => {
    const before = op.helmCalls().length;
    // The operator logs every finished reconcile at debug level with its key; the period is 2 s.
    const reconciles = () => op.output().split(`"key":"${ns}/${name}"`).length - 1;
    const start = reconciles();
    await expect.poll(() => reconciles() - start, { timeout: 20_000, interval: 250 }).toBeGreaterThanOrEqual(3);
    expect(op.helmCalls().length).toBe(before);
  });

  it('uninstalls the release and removes the finalizer when the CR is deleted', async () => {
    await kube.custom.deleteNamespacedCustomObject({ ...kind, namespace: ns, name });
    await expect.poll(() => isGone(getCr), { timeout: 60_000, interval: 250 }).toBe(true);
    await expect
      .poll(() => isGone(() => kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns })), {
        timeout: 30_000,
      })
      .toBe(true);
    const secrets = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: `owner=helm,name=${name}` });
    expect(secrets.items).toEqual([]);
    // A release without delete hooks is uninstalled in-process: no helm process (uninstall/uninstaller.ts).
    expect(op.helmCalls()).not.toContain('uninstall');
  });
});
