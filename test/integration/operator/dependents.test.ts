// Ownership, dependent watches and drift repair against the real control plane and the real helm: the chart's
// objects carry ownerReferences or the CR-typed annotations and the chart label, and whatever someone scales,
// edits or deletes is put back from the deployed manifest within seconds, by the operator itself (no helm).
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { isNotFound, type TestKube } from '../../support/kube.js';
import { type crClient, DEPENDENTS_CHART, type OperatorProcess, type TestKind } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const POLL = { timeout: 30_000, interval: 100 } as const;
const CHART_LABEL = 'helm.sdk.operatorframework.io/chart';

// helm 3 runs the post-renderer as an executable, helm 4 as a plugin: both must give the same result.
const helms = Object.entries(inject('cluster').helms);

describe.each(helms)(
  'the operator with %s, for a chart with namespaced, cluster-scoped and kept objects',
  (_, helm) => {
    let kube: TestKube;
    let kind: TestKind;
    let ns: string;
    let other: string;
    let op: OperatorProcess;
    let crs: ReturnType<typeof crClient>;
    let uid: string;
    const name = 'shop';
    const web = `${name}-web`;
    const clusterRole = () => `${ns}-${name}-reader`;

    const driftEvents = async () => {
      const list = await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` });
      return list.items.filter((e) => e.reason === 'DriftCorrected').map((e) => e.message ?? '');
    };

    const f = useOperatorFixture({
      kinds: [{ kind: 'Shop', chart: DEPENDENTS_CHART }],
      namespaces: ['op-deps', 'op-deps-other'],
      helm,
      // No periodic reconcile: every repair below is triggered by the dependent's own watch event.
      operator: () => ({ args: ['--reconcile-period=0', '--zap-log-level=debug'] }),
    });

    beforeAll(async () => {
      ({ kube, kind, op, crs } = f);
      [ns, other] = f.namespaces as [string, string];
      f.onCleanup(() =>
        kube.rbac.deleteClusterRole({ name: clusterRole() }).catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        }),
      );
      await f.create(name, { otherNamespace: other });
      await vi.waitFor(async () => expect((await crs.condition(name, 'Deployed'))?.status).toBe('True'), {
        timeout: 60_000,
        interval: 250,
      });
      uid = String(((await crs.get(name)).metadata as { uid?: string }).uid);
    });

    describe('when the release is installed', () => {
      it('gives namespaced objects in the CR namespace a controller ownerReference and the chart label', async () => {
        const deploy = await kube.apps.readNamespacedDeployment({ name: web, namespace: ns });
        const svc = await kube.core.readNamespacedService({ name: web, namespace: ns });
        const cm = await kube.core.readNamespacedConfigMap({ name: `${name}-config`, namespace: ns });
        for (const obj of [deploy, svc, cm]) {
          expect(obj.metadata?.ownerReferences).toEqual([
            {
              apiVersion: `${kind.group}/${kind.version}`,
              kind: 'Shop',
              name,
              uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ]);
          expect(obj.metadata?.labels?.[CHART_LABEL]).toBe('dependents');
          expect(obj.metadata?.annotations?.['operator-sdk/primary-resource']).toBeUndefined();
        }
      });

      it('gives the cluster-scoped ClusterRole the CR-typed primary-resource annotations and no ownerReference', async () => {
        const role = await kube.rbac.readClusterRole({ name: clusterRole() });
        expect(role.metadata?.ownerReferences ?? []).toEqual([]);
        expect(role.metadata?.annotations).toMatchObject({
          'operator-sdk/primary-resource': `${ns}/${name}`,
          'operator-sdk/primary-resource-type': `Shop.${kind.group}`,
        });
        expect(role.metadata?.labels?.[CHART_LABEL]).toBe('dependents');
      });

      it('annotates keep-policy and other-namespace objects instead of owning them', async () => {
        const kept = await kube.core.readNamespacedConfigMap({ name: `${name}-kept`, namespace: ns });
        const elsewhere = await kube.core.readNamespacedConfigMap({ name: `${name}-elsewhere`, namespace: other });
        for (const obj of [kept, elsewhere]) {
          expect(obj.metadata?.ownerReferences ?? []).toEqual([]);
          expect(obj.metadata?.annotations?.['operator-sdk/primary-resource']).toBe(`${ns}/${name}`);
          expect(obj.metadata?.annotations?.['operator-sdk/primary-resource-type']).toBe(`Shop.${kind.group}`);
        }
        expect(kept.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
      });
    });

    describe('when someone scales the Deployment by hand', () => {
      it('scales it back and records a DriftCorrected event naming it', async () => {
        const deploy = await kube.apps.readNamespacedDeployment({ name: web, namespace: ns });
        if (!deploy.spec) throw new Error('the Deployment has no spec');
        await kube.apps.replaceNamespacedDeployment({
          name: web,
          namespace: ns,
          body: { ...deploy, spec: { ...deploy.spec, replicas: 4 } },
        });
        await expect
          .poll(
            async () => (await kube.apps.readNamespacedDeployment({ name: web, namespace: ns })).spec?.replicas,
            POLL,
          )
          .toBe(1);
        await expect
          .poll(async () => (await driftEvents()).some((m) => m.includes(`Deployment ${ns}/${web}`)), POLL)
          .toBe(true);
      });
    });

    describe('when someone deletes the Service', () => {
      it('recreates it', async () => {
        const before = await kube.core.readNamespacedService({ name: web, namespace: ns });
        await kube.core.deleteNamespacedService({ name: web, namespace: ns });
        await expect
          .poll(async () => {
            const svc = await kube.core.readNamespacedService({ name: web, namespace: ns }).catch(() => undefined);
            return svc !== undefined && svc.metadata?.uid !== before.metadata?.uid;
          }, POLL)
          .toBe(true);
        const svc = await kube.core.readNamespacedService({ name: web, namespace: ns });
        expect(svc.spec?.ports?.[0]?.port).toBe(80);
        expect(svc.metadata?.ownerReferences?.[0]?.uid).toBe(uid);
        // The event is written after the object: waited for, not read once.
        await expect
          .poll(async () => (await driftEvents()).some((m) => m.includes(`Recreated Service ${ns}/${web}`)), POLL)
          .toBe(true);
      });
    });

    describe('when someone edits the ConfigMap', () => {
      it("reverts the chart's keys and keeps the key they added", async () => {
        const cmName = `${name}-config`;
        const cm = await kube.core.readNamespacedConfigMap({ name: cmName, namespace: ns });
        await kube.core.replaceNamespacedConfigMap({
          name: cmName,
          namespace: ns,
          body: { ...cm, data: { ...cm.data, greeting: 'tampered', extra: 'added by someone else' } },
        });
        await expect
          .poll(async () => (await kube.core.readNamespacedConfigMap({ name: cmName, namespace: ns })).data, POLL)
          .toEqual({ greeting: 'hello', mode: '0755', extra: 'added by someone else' });
      });
    });

    describe('when someone edits the cluster-scoped ClusterRole', () => {
      it('puts its rules back', async () => {
        const role = await kube.rbac.readClusterRole({ name: clusterRole() });
        await kube.rbac.replaceClusterRole({
          name: clusterRole(),
          body: { ...role, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
        });
        await expect
          .poll(async () => (await kube.rbac.readClusterRole({ name: clusterRole() })).rules?.[0]?.resources, POLL)
          .toEqual(['configmaps']);
      });
    });

    describe('after every repair above', () => {
      it('has spawned no helm process beyond the install', () => {
        expect(op.helmCalls()).toEqual(['version', 'install']);
      });

      it('logged at debug level which dependent triggered each reconcile', () => {
        const lines = op
          .output()
          .split('\n')
          .filter((l) => l.includes('"msg":"Dependent changed: reconcile its owner"'));
        expect(lines.some((l) => l.includes('"kind":"Service"') && l.includes('"event":"delete"'))).toBe(true);
      });
    });
  },
);
