// /readyz tells the truth about the caches: an operator whose identity may not yet list its custom resources is
// alive (/healthz 200) but not ready (/readyz 503 naming the controller); once RBAC grants the list, the informer's
// retry syncs and /readyz turns 200. Real ServiceAccount token, real RBAC, real control plane.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { boundAddress } from '../../support/addresses.js';
import { isNotFound, type TestKube } from '../../support/kube.js';
import type { OperatorProcess, TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { serviceAccountKubeconfig } from '../../support/service-account.js';

describe('the operator before and after its caches sync', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns: string;
  let op: OperatorProcess;
  const sa = 'operator';

  const probeAddress = (): string | undefined => boundAddress(op.output(), 'Serving health probes');
  const probe = async (path: string) => {
    const res = await fetch(`http://${probeAddress()}${path}`);
    return { status: res.status, body: await res.text() };
  };

  const f = useOperatorFixture({
    kinds: ['Ready'],
    namespaces: ['op-ready'],
    operator: async (f) => {
      const dir = await mkdtemp(join(tmpdir(), 'op-ready-'));
      f.onCleanup(() => rm(dir, { recursive: true, force: true }));
      const kubeconfig = await serviceAccountKubeconfig(f.kube, f.ns, sa, dir);
      return { args: ['--health-probe-bind-address=127.0.0.1:0'], env: { KUBECONFIG: kubeconfig } };
    },
  });
  beforeAll(() => {
    ({ kube, kind, ns, op } = f);
  });

  it('is alive but not ready while it may not list its custom resources', async () => {
    await expect.poll(probeAddress, POLL).toMatch(/^127\.0\.0\.1:\d+$/);
    await expect.poll(async () => (await probe('/readyz')).body, POLL).toContain('waiting for the first sync of');
    expect(await probe('/readyz')).toEqual({
      status: 503,
      body: expect.stringContaining(`${kind.kind.toLowerCase()}-controller`),
    });
    expect((await probe('/healthz')).status).toBe(200);
  });

  it('turns ready once RBAC lets it list them and the informer synced', async () => {
    const role = `${ns}-reader`;
    await kube.rbac.createClusterRole({
      body: {
        metadata: { name: role },
        rules: [{ apiGroups: [kind.group], resources: [kind.plural], verbs: ['get', 'list', 'watch'] }],
      },
    });
    f.onFinalCleanup(() =>
      kube.rbac.deleteClusterRole({ name: role }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      }),
    );
    await kube.rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
      },
    });
    await expect.poll(async () => (await probe('/readyz')).status, POLL).toBe(200);
    expect((await probe('/readyz')).body).toBe('ok');
  });
});
