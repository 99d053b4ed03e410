// The real operator with --metrics-secure (HTTPS with a generated self-signed certificate, or one read from
// --metrics-cert-path) and --metrics-require-rbac (bearer tokens checked with TokenReview and SubjectAccessReview):
// 401 without or with a bad token, 403 for a ServiceAccount without rights, 200 once a ClusterRole grants get /metrics.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { selfSignedCertificate } from '../../../src/server/selfsigned.js';
import { boundAddress } from '../../support/addresses.js';
import { isNotFound, type TestKube, uniqueName } from '../../support/kube.js';
import type { OperatorProcess, TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

interface Answer {
  readonly status: number;
  readonly body: string;
  /** The CN of the certificate the server presented. */
  readonly cn: string;
}

/** GET https://<addr>/metrics, accepting any certificate; `token` goes into `Authorization: Bearer`. */
function getMetrics(addr: string | undefined, token?: string): Promise<Answer> {
  const [host, port] = (addr ?? '').split(/:(?=\d+$)/);
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port: Number(port), path: '/metrics', headers, rejectUnauthorized: false, agent: false },
      (res) => {
        const cn = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cn }));
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
    req.end();
  });
}

/** The address the operator logged with "Serving metrics". */
const metricsAddress = (op: OperatorProcess): string | undefined => boundAddress(op.output(), 'Serving metrics');

describe('the operator with --metrics-secure', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns: string;
  let dir: string;

  const f = useOperatorFixture({ kinds: ['SecureMetrics'], namespaces: ['op-metrics-secure'], start: false });
  beforeAll(async () => {
    ({ kube, kind, ns } = f);
    dir = await mkdtemp(join(tmpdir(), 'op-metrics-secure-'));
    f.onCleanup(() => rm(dir, { recursive: true, force: true }));
  });

  const start = (args: readonly string[]) =>
    f.start({ args: ['--metrics-bind-address=127.0.0.1:0', '--metrics-secure', ...args] });

  /** A bound token of a new ServiceAccount in the test namespace. */
  const serviceAccountToken = async (name: string) => {
    await kube.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    const tr = await kube.core.createNamespacedServiceAccountToken({
      name,
      namespace: ns,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const token = tr.status?.token;
    if (!token) throw new Error(`no token for ServiceAccount ${ns}/${name}`);
    return token;
  };

  describe('and --metrics-require-rbac', () => {
    let op: OperatorProcess;
    let addr: string | undefined;

    beforeAll(async () => {
      op = start(['--metrics-require-rbac']);
      addr = await vi.waitFor(() => {
        const a = metricsAddress(op);
        expect(a).toMatch(/^127\.0\.0\.1:\d+$/);
        return a;
      }, POLL);
    });

    it('speaks only HTTPS, with a generated self-signed certificate', async () => {
      await expect(fetch(`http://${addr}/metrics`)).rejects.toThrow();
      const res = await getMetrics(addr);
      expect(res.cn).toBe('helm-operator');
      expect(op.output()).toContain('"secure":true,"requireRbac":true');
    });

    it('answers 401 without a token and for a token the API server does not know', async () => {
      expect(await getMetrics(addr)).toMatchObject({ status: 401, body: 'Unauthorized\n' });
      expect(await getMetrics(addr, 'not-a-real-token')).toMatchObject({ status: 401, body: 'Unauthorized\n' });
    });

    it('answers 403 for a ServiceAccount without rights, and 200 once a ClusterRole grants get /metrics', async () => {
      const sa = 'metrics-reader';
      const token = await serviceAccountToken(sa);
      const denied = await getMetrics(addr, token);
      expect(denied).toMatchObject({ status: 403 });
      expect(denied.body).toContain(`system:serviceaccount:${ns}:${sa}`);

      const role = uniqueName('metrics-reader');
      const deleteRbac = async () => {
        for (const del of [
          () => kube.rbac.deleteClusterRoleBinding({ name: role }),
          () => kube.rbac.deleteClusterRole({ name: role }),
        ]) {
          await del().catch((e: unknown) => {
            if (!isNotFound(e)) throw e;
          });
        }
      };
      f.onCleanup(deleteRbac);
      await kube.rbac.createClusterRole({
        body: { metadata: { name: role }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] },
      });
      await kube.rbac.createClusterRoleBinding({
        body: {
          metadata: { name: role },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
        },
      });
      // The 403 is cached for 10 s per token; the operator then asks again.
      await expect.poll(async () => (await getMetrics(addr, token)).status, POLL).toBe(200);
      await expect
        .poll(async () => (await getMetrics(addr, token)).body, POLL)
        .toContain(
          `controller_runtime_reconcile_total{controller="${kind.kind.toLowerCase()}-controller",result="success"} 0`,
        );
      // Other identities are still refused.
      expect((await getMetrics(addr)).status).toBe(401);
      expect((await getMetrics(addr, await serviceAccountToken('other'))).status).toBe(403);
      expect(op.output()).not.toContain(token);
    });
  });

  describe('without --metrics-require-rbac, with --metrics-cert-path', () => {
    it('serves /metrics over HTTPS with the certificate from the directory, without a token', async () => {
      const pair = selfSignedCertificate({ commonName: 'from-cert-path' });
      await writeFile(join(dir, 'cert.pem'), pair.cert);
      await writeFile(join(dir, 'key.pem'), pair.key, { mode: 0o600 });
      const op = start([`--metrics-cert-path=${dir}`, '--metrics-cert-name=cert.pem', '--metrics-cert-key=key.pem']);
      await expect.poll(() => metricsAddress(op), POLL).toMatch(/^127\.0\.0\.1:\d+$/);
      const addr = metricsAddress(op);
      await expect
        .poll(async () => (await getMetrics(addr)).body, POLL)
        .toContain('controller_runtime_reconcile_total');
      const res = await getMetrics(addr);
      expect(res).toMatchObject({ status: 200, cn: 'from-cert-path' });
      expect(new X509Certificate(pair.cert).subject).toBe('CN=from-cert-path');
      await expect(fetch(`http://${addr}/metrics`)).rejects.toThrow();
    });
  });
});

describe('the operator with --metrics-require-rbac but without --metrics-secure', () => {
  const f = useOperatorFixture({ kinds: [], namespaces: [], start: false });
  it('exits 2 at startup with one plain line naming both flags', async () => {
    const op = f.start({
      watches: '[]\n',
      args: ['--metrics-require-rbac'],
      env: { KUBECONFIG: '/nonexistent/kubeconfig' },
    });
    expect(await op.exited).toBe(2);
    expect(op.output()).toMatch(
      /^helm-operator run: .*--metrics-require-rbac needs --metrics-secure.*\(CONFIG_INVALID\)\n$/,
    );
  });
});
