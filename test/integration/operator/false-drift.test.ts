// No false drift, against the real control plane and the real helm: a chart that renders false, 0, "", empty
// blocks and empty nodePorts (as published charts do) stays untouched through idle periodic reconciles (no
// DriftCorrected event, no write), while a real change to its objects is still put back.
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { deploymentSettled, isNotFound, type TestKube } from '../../support/kube.js';
import { type crClient, type OperatorProcess, ROOT } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';
import { idleFor } from '../../support/reconciles.js';

const CHART = `${ROOT}/test/fixtures/charts/false-drift`;
const PERIOD_S = 2;
const POLL = { timeout: 60_000, interval: 250 } as const;
const DRIFT_MANAGER = 'helm-operator-drift';

interface Meta {
  metadata?: { resourceVersion?: string; managedFields?: { manager?: string }[] };
}

const helms = Object.entries(inject('cluster').helms);
const nodes = inject('cluster').nodes;

describe.each(helms)('the operator with %s, for a chart that renders values the server leaves out', (_, helm) => {
  let kube: TestKube;
  let ns: string;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;
  const name = 'edge';
  const obj = `${name}-edge`;
  const clusterObj = () => `${ns}-${name}-edge`;

  /** Every object of the chart, read fresh, by kind. */
  const objects = async (): Promise<Record<string, Meta>> => ({
    Deployment: await kube.apps.readNamespacedDeployment({ name: obj, namespace: ns }),
    Service: await kube.core.readNamespacedService({ name: obj, namespace: ns }),
    ServiceAccount: await kube.core.readNamespacedServiceAccount({ name: obj, namespace: ns }),
    Role: await kube.rbac.readNamespacedRole({ name: obj, namespace: ns }),
    RoleBinding: await kube.rbac.readNamespacedRoleBinding({ name: obj, namespace: ns }),
    ClusterRole: await kube.rbac.readClusterRole({ name: clusterObj() }),
    ClusterRoleBinding: await kube.rbac.readClusterRoleBinding({ name: clusterObj() }),
  });
  const versions = async () =>
    Object.fromEntries(Object.entries(await objects()).map(([k, o]) => [k, o.metadata?.resourceVersion]));
  /** The kinds of the objects that drift repair ever wrote (its field manager shows in their managedFields). */
  const writtenByDriftRepair = async () =>
    Object.entries(await objects())
      .filter(([, o]) => o.metadata?.managedFields?.some((f) => f.manager === DRIFT_MANAGER))
      .map(([k]) => k);
  /** The DriftCorrected events on the CR, one message per occurrence (the recorder aggregates repeats). */
  const driftEvents = async () => {
    const list = await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` });
    return list.items
      .filter((e) => e.reason === 'DriftCorrected')
      .flatMap((e) => Array.from({ length: e.count ?? 1 }, () => e.message ?? ''));
  };
  const logLines = (msg: string) =>
    op
      .output()
      .split('\n')
      .filter((l) => l.includes(`"msg":"${msg}"`));
  const settled = (replicas: number) => deploymentSettled(kube, { namespace: ns, name: obj }, replicas, nodes);
  const idle = (n: number) => idleFor(op, `${ns}/${name}`, n, PERIOD_S * 1000);

  const f = useOperatorFixture({
    kinds: [{ kind: 'Edge', chart: CHART }],
    namespaces: ['op-false-drift'],
    helm,
    operator: () => ({ args: [`--reconcile-period=${PERIOD_S}s`, '--zap-log-level=debug'] }),
  });

  beforeAll(async () => {
    ({ kube, ns, op, crs } = f);
    f.onCleanup(async () => {
      const ignoreGone = (e: unknown) => {
        if (!isNotFound(e)) throw e;
      };
      await kube.rbac.deleteClusterRoleBinding({ name: clusterObj() }).catch(ignoreGone);
      await kube.rbac.deleteClusterRole({ name: clusterObj() }).catch(ignoreGone);
    });
    await f.create(name, {});
    await vi.waitFor(async () => expect((await crs.condition(name, 'Deployed'))?.status).toBe('True'), POLL);
    await settled(1);
  });

  describe('while the CR stays idle for three reconcile periods after Deployed', () => {
    it('reports no drift and writes none of its objects', async () => {
      const before = await versions();

      await idle(3);

      expect(await driftEvents()).toEqual([]);
      expect(logLines('Drift corrected')).toEqual([]);
      expect(await versions()).toEqual(before);
      expect(await writtenByDriftRepair()).toEqual([]);
    });

    it('deployed a manifest that really renders the patterns (false, 0, "", empty blocks, empty nodePorts)', async () => {
      const manifest = (await crs.get(name)).status?.deployedRelease?.manifest ?? '';
      for (const pattern of [
        /hostNetwork: false\n/,
        /minReadySeconds: 0\n/,
        /initialDelaySeconds: 0\n/,
        /apiGroup: (""|'')\n/,
        /nodePort: null\n/,
        /annotations: null\n/,
      ]) {
        expect(manifest).toMatch(pattern);
      }
      const svc = await kube.core.readNamespacedService({ name: obj, namespace: ns });
      expect(svc.spec?.ports?.map((p) => typeof p.nodePort)).toEqual(['number', 'number']);
    });
  });

  describe('when someone scales the Deployment and rebinds the RoleBinding', () => {
    it('puts both back and records a DriftCorrected event for each', async () => {
      const deploy = await kube.apps.readNamespacedDeployment({ name: obj, namespace: ns });
      await kube.apps.replaceNamespacedDeployment({
        name: obj,
        namespace: ns,
        body: { ...deploy, spec: { ...(deploy.spec ?? { selector: {}, template: {} }), replicas: 3 } },
      });
      const binding = await kube.rbac.readNamespacedRoleBinding({ name: obj, namespace: ns });
      await kube.rbac.replaceNamespacedRoleBinding({
        name: obj,
        namespace: ns,
        body: { ...binding, subjects: [{ kind: 'ServiceAccount', name: 'intruder', namespace: ns }] },
      });

      await vi.waitFor(async () => {
        expect((await kube.apps.readNamespacedDeployment({ name: obj, namespace: ns })).spec?.replicas).toBe(1);
        const subjects = (await kube.rbac.readNamespacedRoleBinding({ name: obj, namespace: ns })).subjects;
        expect(subjects?.map((s) => s.name)).toEqual([obj]);
        const events = await driftEvents();
        expect(events).toContainEqual(expect.stringContaining(`Deployment ${ns}/${obj}`));
        expect(events).toContainEqual(expect.stringContaining(`RoleBinding ${ns}/${obj}`));
      }, POLL);
      expect((await writtenByDriftRepair()).sort()).toEqual(['Deployment', 'RoleBinding']);
    });

    it('then leaves the repaired objects alone: no further correction over three more periods', async () => {
      await settled(1);
      const events = (await driftEvents()).length;
      const corrected = logLines('Drift corrected').length;
      const before = await versions();

      await idle(3);

      expect((await driftEvents()).length).toBe(events);
      expect(logLines('Drift corrected')).toHaveLength(corrected);
      expect(await versions()).toEqual(before);
    });
  });
});
