// A revoked service-account token, on the plane: the operator authenticates with a token file (as in a pod); the
// token it holds is revoked (its bound Secret deleted, and the API server's token cache past) after a fresh one was
// written to the file. The first 401 re-reads the file at once, so a spec change right after the revocation is
// upgraded within seconds (not after the minute's re-read), and neither its status write nor its event is lost.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, inject, it } from 'vitest';
import { uniqueName } from '../../support/kube.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { run } from '../../support/run.js';

describe('a revoked token', () => {
  const f = useOperatorFixture({ kinds: ['Nginx'], namespaces: ['op-token'], start: false });
  const dir = mkdtempSync(join(tmpdir(), 'token-refresh-'));
  const sa = uniqueName('operator');
  // After the CRs are gone and the operator stopped: it needs the binding until then.
  f.onFinalCleanup(async () => {
    rmSync(dir, { recursive: true, force: true });
    await f.kube.rbac.deleteClusterRoleBinding({ name: sa }).catch(() => undefined);
  });

  /** A token of the ServiceAccount bound to Secret `secret` (deleting the Secret revokes it). */
  const tokenBoundTo = async (secret: string) => {
    await f.kube.core.createNamespacedSecret({ namespace: f.ns, body: { metadata: { name: secret } } });
    const s = await f.kube.core.readNamespacedSecret({ namespace: f.ns, name: secret });
    const req = await f.kube.core.createNamespacedServiceAccountToken({
      name: sa,
      namespace: f.ns,
      body: {
        spec: {
          audiences: [],
          expirationSeconds: 3600,
          boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: secret, uid: s.metadata?.uid ?? '' },
        },
      },
    });
    return req.status?.token ?? '';
  };

  it('is replaced from the token file within seconds of the first 401, losing no status write or event', async () => {
    await f.kube.core.createNamespacedServiceAccount({ namespace: f.ns, body: { metadata: { name: sa } } });
    await f.kube.rbac.createClusterRoleBinding({
      body: {
        metadata: { name: sa },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: f.ns }],
      },
    });
    const tokenFile = join(dir, 'token');
    const held = await tokenBoundTo(`${sa}-1`);
    writeFileSync(tokenFile, held, { mode: 0o600 });
    const admin = new KubeConfig();
    admin.loadFromFile(f.kube.kubeconfig);
    const cluster = admin.getCurrentCluster();
    if (!cluster) throw new Error('the test kubeconfig has no current cluster');
    const kubeconfig = join(dir, 'kubeconfig');
    const kubeconfigWith = (user: string) =>
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: plane\n  cluster:\n    server: ${cluster.server}\n    certificate-authority-data: ${cluster.caData ?? ''}`,
        `users:\n- name: ${sa}\n  user:\n    ${user}`,
        `contexts:\n- name: plane\n  context:\n    cluster: plane\n    user: ${sa}`,
        'current-context: plane',
        '',
      ].join('\n');
    writeFileSync(kubeconfig, kubeconfigWith(`tokenFile: ${tokenFile}`), { mode: 0o600 });
    const heldKubeconfig = join(dir, 'held.kubeconfig');
    writeFileSync(heldKubeconfig, kubeconfigWith(`token: ${held}`), { mode: 0o600 });
    const op = f.start({ env: { KUBECONFIG: kubeconfig } });
    await f.create('web', { replicaCount: 1 });
    await expect.poll(async () => (await f.crs.get('web')).status?.deployedRelease?.revision, POLL).toBe(1);

    // Rotation: the fresh token is in the file, then the one the operator holds is revoked.
    writeFileSync(tokenFile, await tokenBoundTo(`${sa}-2`));
    await f.kube.core.deleteNamespacedSecret({ namespace: f.ns, name: `${sa}-1` });
    // The API server caches a token's authentication for a few seconds: wait until it refuses the held token.
    const refused = async () =>
      run(inject('cluster').kubectl ?? 'kubectl', ['--kubeconfig', heldKubeconfig, 'get', '--raw', '/api']).then(
        () => false,
        (err: unknown) => /Unauthorized|401/.test(String(err)),
      );
    await expect.poll(refused, { timeout: 30_000, interval: 250 }).toBe(true);
    const t0 = performance.now();
    await f.crs.setSpec('web', { replicaCount: 2 });
    await expect
      .poll(async () => (await f.crs.get('web')).status?.deployedRelease?.revision, { timeout: 20_000, interval: 100 })
      .toBe(2);
    const seconds = (performance.now() - t0) / 1000;
    expect(seconds).toBeLessThan(20); // the minute's re-read alone would take up to 60 s
    expect((await f.crs.condition('web', 'Deployed'))?.reason).toBe('UpgradeSuccessful');
    await expect
      .poll(async () => {
        const events = await f.kube.core.listNamespacedEvent({ namespace: f.ns });
        return events.items.some((e) => e.reason === 'UpgradeSucceeded' && e.involvedObject?.name === 'web');
      }, POLL)
      .toBe(true);
    expect(op.output()).not.toContain('KUBE_UNAUTHORIZED');
    process.stderr.write(`token refresh: revision 2 Deployed ${seconds.toFixed(1)} s after the spec change\n`);
  });
});
