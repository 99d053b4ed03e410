// An operator whose role lacks pods get/list (an operator-sdk project deployed unchanged): the pod LIST is refused
// (403 from the real RBAC), so Ready keeps the Deployment's own message, the log says so once, and no reconcile
// fails. Real ServiceAccount token, real RBAC, plane with fake nodes (TESTENV_NODES > 0).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { RECONCILE_REQUESTED_AT } from '../../../src/reconciler/start/requests.js';
import type { crClient } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';
import { serviceAccountKubeconfig } from '../../support/service-account.js';

const CHART = fileURLToPath(new URL('../../fixtures/charts/readiness', import.meta.url));
const POLL = { timeout: 60_000, interval: 100 } as const;
const nodes = inject('cluster').nodes;
const ALL = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

describe.skipIf(nodes === 0)('Ready without the right to list pods (needs TESTENV_NODES > 0)', () => {
  let crs: ReturnType<typeof crClient>;
  const name = 'norbac';
  const f = useOperatorFixture({
    kinds: [{ kind: 'Blind', chart: CHART }],
    namespaces: ['op-norbac'],
    operator: async (f) => {
      const dir = await mkdtemp(join(tmpdir(), 'op-norbac-'));
      f.onCleanup(() => rm(dir, { recursive: true, force: true }));
      const kubeconfig = await serviceAccountKubeconfig(f.kube, f.ns, 'operator', dir);
      const { group, plural } = f.kind;
      // What the operator and helm need for this chart in this namespace: everything but pods.
      await f.kube.rbac.createNamespacedRole({
        namespace: f.ns,
        body: {
          metadata: { name: 'operator' },
          rules: [
            { apiGroups: [''], resources: ['secrets', 'configmaps', 'services'], verbs: ALL },
            { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
            { apiGroups: ['apps'], resources: ['deployments'], verbs: ALL },
            { apiGroups: [group], resources: [plural], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
            {
              apiGroups: [group],
              resources: [`${plural}/status`, `${plural}/finalizers`],
              verbs: ['get', 'patch', 'update'],
            },
          ],
        },
      });
      await f.kube.rbac.createNamespacedRoleBinding({
        namespace: f.ns,
        body: {
          metadata: { name: 'operator' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'operator' },
          subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: f.ns }],
        },
      });
      return { env: { KUBECONFIG: kubeconfig } };
    },
  });

  beforeAll(() => {
    ({ crs } = f);
  });

  it('keeps the Deployment’s own message, warns once, and fails no reconcile', async () => {
    await f.create(name, { replicas: 1, pullFails: true });
    await vi.waitFor(async () => {
      expect(await crs.condition(name, 'Deployed')).toMatchObject({ status: 'True' });
      expect(await crs.condition(name, 'Ready')).toMatchObject({ status: 'False', reason: 'DeploymentNotReady' });
      expect(f.op.output()).toContain('Cannot list pods');
    }, POLL);
    for (const at of ['r1', 'r2']) {
      await crs.annotate(name, { [RECONCILE_REQUESTED_AT]: at });
      await vi.waitFor(
        async () => expect((await crs.get(name)).status).toMatchObject({ lastHandledReconcileAt: at }),
        POLL,
      );
    }
    expect(await crs.condition(name, 'Ready')).toMatchObject({ status: 'False', reason: 'DeploymentNotReady' });
    expect(await crs.condition(name, 'Irreconcilable')).toBeUndefined();
    expect(await crs.condition(name, 'ReleaseFailed')).toBeUndefined();
    expect(
      f.op
        .output()
        .split('\n')
        .filter((l) => l.includes('Cannot list pods')),
    ).toHaveLength(1);
  });
});
