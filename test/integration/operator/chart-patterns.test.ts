// Real-chart layouts through the operator, against the real control plane and helm 3 and 4, with charts written for
// these tests: a `crds/` folder whose CRD an object in the templates uses (cert-manager, argo-cd,
// kube-prometheus-stack), and an umbrella chart whose vendored subcharts are switched by `condition:` (a subchart
// turned on and off by upgrades, global values, a subchart's upgrade hook). Neither needs pods or nodes.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { isGone, isNotFound, type TestKube } from '../../support/kube.js';
import { crClient, ROOT, releaseRevisions, type TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const WITH_CRDS_CHART = join(ROOT, 'test/fixtures/charts/with-crds');
const UMBRELLA_CHART = join(ROOT, 'test/fixtures/charts/umbrella');
/** The CRD in with-crds/crds/: cluster-scoped, so shared by every release of the chart (and both helm blocks). */
const GADGET = { group: 'withcrds.fixtures.helm-operator.test', version: 'v1', plural: 'gadgets' } as const;
const GADGET_CRD = `${GADGET.plural}.${GADGET.group}`;

const helms = Object.entries(inject('cluster').helms);
/** helm 4 runs the post-renderer on hooks too (so the operator owns them); helm 3 only on the release's objects. */
const hooksPostRendered = (helm: string) =>
  !/^v3\./.test(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }));

describe.each(helms)('the operator with %s, for real-chart layouts', (_, helm) => {
  let kube: TestKube;
  let ns: string;
  let gadgetKind: TestKind;
  let umbrellaKind: TestKind;
  let gadgets: ReturnType<typeof crClient>;
  let stacks: ReturnType<typeof crClient>;

  const f = useOperatorFixture({
    kinds: [
      { kind: 'Gear', chart: WITH_CRDS_CHART },
      { kind: 'Stack', chart: UMBRELLA_CHART },
    ],
    namespaces: ['op-patterns'],
    helm,
    operator: () => ({ args: ['--reconcile-period=0'] }),
  });

  const deleteGadgetCrd = async () => {
    await kube.apiext.deleteCustomResourceDefinition({ name: GADGET_CRD }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
    // A CRD being deleted still exists (Terminating): the next install would skip it and then fail on its objects.
    await vi.waitFor(
      async () => expect(await isGone(() => kube.apiext.readCustomResourceDefinition({ name: GADGET_CRD }))).toBe(true),
      POLL,
    );
  };

  beforeAll(async () => {
    ({ kube, ns } = f);
    [gadgetKind, umbrellaKind] = f.kinds as [TestKind, TestKind];
    gadgets = crClient(kube, gadgetKind, ns);
    stacks = crClient(kube, umbrellaKind, ns);
    // helm never deletes what crds/ installed: the test does, after the CRs are gone (and before the next block).
    f.onCleanup(deleteGadgetCrd);
    await deleteGadgetCrd();
  });

  const condition = async (crs: ReturnType<typeof crClient>, name: string, type: string) => crs.condition(name, type);
  const readGadget = async (name: string) =>
    (await kube.custom.getNamespacedCustomObject({ ...GADGET, namespace: ns, name })) as {
      spec?: { size?: number; color?: string };
      metadata?: { ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
    };
  const configMap = async (name: string) => {
    try {
      return await kube.core.readNamespacedConfigMap({ name, namespace: ns });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const revision = async (crs: ReturnType<typeof crClient>, name: string) =>
    (await crs.get(name)).status?.deployedRelease?.revision;

  describe('a chart with a crds/ folder and an object of that CRD in its templates', () => {
    it('installs the CRD first, then the object; upgrades and uninstalls the object and leaves the CRD', async () => {
      const name = 'gear';
      f.track(gadgetKind, ns, name);
      await gadgets.create(name, { size: 2 });
      await expect
        .poll(async () => (await condition(gadgets, name, 'Deployed'))?.reason, POLL)
        .toBe('InstallSuccessful');

      // helm created the CRD from crds/ and waited until it was established, so the Gadget could be created.
      const crd = await kube.apiext.readCustomResourceDefinition({ name: GADGET_CRD });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      const gadget = await readGadget(`${name}-gadget`);
      expect(gadget.spec).toEqual({ size: 2, color: 'blue' });
      // The operator resolved the new kind's scope (discovery after helm created the CRD) and owns the object.
      expect(gadget.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Gear', name, controller: true }),
      ]);
      // The CRD is not part of the release: not in the manifest, not owned by the CR.
      const manifest = (await gadgets.get(name)).status?.deployedRelease?.manifest ?? '';
      expect(manifest).toContain('kind: Gadget');
      expect(manifest).not.toContain('kind: CustomResourceDefinition');
      expect(crd.metadata?.ownerReferences ?? []).toEqual([]);

      // A second release of the chart finds the CRD there: helm skips it, and the install succeeds.
      const second = 'gear-two';
      f.track(gadgetKind, ns, second);
      await gadgets.create(second, { size: 5, color: 'red' });
      await expect
        .poll(async () => (await condition(gadgets, second, 'Deployed'))?.reason, POLL)
        .toBe('InstallSuccessful');
      expect((await readGadget(`${second}-gadget`)).spec).toEqual({ size: 5, color: 'red' });

      // An upgrade changes the custom object.
      await gadgets.setSpec(name, { size: 3, color: 'green' });
      await expect.poll(() => revision(gadgets, name), POLL).toBe(2);
      expect((await condition(gadgets, name, 'Deployed'))?.reason).toBe('UpgradeSuccessful');
      expect((await readGadget(`${name}-gadget`)).spec).toEqual({ size: 3, color: 'green' });

      // Deleting the CRs uninstalls both releases: their Gadgets go, the CRD stays (helm never deletes crds/).
      await gadgets.delete(name);
      await gadgets.delete(second);
      for (const n of [name, second]) {
        await expect.poll(() => isGone(() => gadgets.get(n)), POLL).toBe(true);
        expect(await isGone(() => readGadget(`${n}-gadget`))).toBe(true);
        expect(await configMap(`${n}-config`)).toBeUndefined();
        expect(await releaseRevisions(kube, ns, n)).toEqual([]);
      }
      expect(await isGone(() => kube.apiext.readCustomResourceDefinition({ name: GADGET_CRD }))).toBe(false);
    });

    it('reports an object the CRD rejects as UpgradeError and rolls back to the last good revision', async () => {
      const name = 'gear-bad';
      f.track(gadgetKind, ns, name);
      await gadgets.create(name, { size: 1, color: 'green' });
      await expect
        .poll(async () => (await condition(gadgets, name, 'Deployed'))?.reason, POLL)
        .toBe('InstallSuccessful');
      // The CRD's schema applies to what the chart renders (helm's client-side validation is off): the upgrade
      // fails with the API server's message and is rolled back to revision 1.
      await gadgets.setSpec(name, { size: 2, color: 'purple' });
      await expect
        .poll(async () => (await condition(gadgets, name, 'ReleaseFailed'))?.reason, POLL)
        .toBe('UpgradeError');
      expect((await condition(gadgets, name, 'ReleaseFailed'))?.message).toMatch(
        /spec\.color: Unsupported value: "purple": supported values: "blue", "green", "red"/,
      );
      await expect
        .poll(() => releaseRevisions(kube, ns, name), POLL)
        .toEqual(['1:superseded', '2:failed', '3:deployed']);
      expect((await readGadget(`${name}-gadget`)).spec).toEqual({ size: 1, color: 'green' });
      await gadgets.delete(name);
      await expect.poll(() => isGone(() => gadgets.get(name)), POLL).toBe(true);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
    });
  });

  describe('an umbrella chart with vendored subcharts behind `condition:`', () => {
    it('installs the enabled subcharts, adds and removes a subchart on upgrade, and uninstalls all', async () => {
      const name = 'stack';
      f.track(umbrellaKind, ns, name);
      await stacks.create(name, {});
      await expect
        .poll(async () => (await condition(stacks, name, 'Deployed'))?.reason, POLL)
        .toBe('InstallSuccessful');
      expect((await configMap(`${name}-umbrella`))?.data).toEqual({
        environment: 'test',
        frontend: 'true',
        backend: 'false',
      });
      // The parent's values reach the subchart under its name, and global values reach every chart.
      expect((await configMap(`${name}-frontend`))?.data).toEqual({ greeting: 'hello', environment: 'test' });
      expect(await configMap(`${name}-backend`)).toBeUndefined();
      expect(await configMap(`${name}-backend-migrated`)).toBeUndefined();

      // Turning the backend on: its objects appear, owned by the CR like the parent's, and its post-upgrade hook runs.
      await stacks.setSpec(name, { backend: { enabled: true, replicas: 2 } });
      await expect.poll(() => revision(stacks, name), POLL).toBe(2);
      expect((await condition(stacks, name, 'Deployed'))?.reason).toBe('UpgradeSuccessful');
      const backend = await configMap(`${name}-backend`);
      expect(backend?.data).toEqual({ replicas: '2', environment: 'test' });
      expect(backend?.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Stack', name, controller: true }),
      ]);
      expect(backend?.metadata?.labels?.['helm.sdk.operatorframework.io/chart']).toBe('umbrella');
      const migrated = await configMap(`${name}-backend-migrated`);
      expect(migrated?.data).toEqual({ revision: '2' });
      expect(migrated?.metadata?.ownerReferences).toEqual(
        hooksPostRendered(helm) ? [expect.objectContaining({ kind: 'Stack', name, controller: true })] : undefined,
      );
      expect((await configMap(`${name}-umbrella`))?.data?.backend).toBe('true');

      // Turning it off again (and changing a global value): helm deletes the subchart's objects; its hook does not
      // run; what the hook made is not part of the release, so it stays as it was.
      await stacks.setSpec(name, { backend: { enabled: false }, global: { environment: 'prod' } });
      await expect.poll(() => revision(stacks, name), POLL).toBe(3);
      expect(await configMap(`${name}-backend`)).toBeUndefined();
      expect((await configMap(`${name}-frontend`))?.data).toEqual({ greeting: 'hello', environment: 'prod' });
      expect((await configMap(`${name}-backend-migrated`))?.data).toEqual({ revision: '2' });
      expect(await releaseRevisions(kube, ns, name)).toEqual(['1:superseded', '2:superseded', '3:deployed']);

      await stacks.delete(name);
      await expect.poll(() => isGone(() => stacks.get(name)), POLL).toBe(true);
      expect(await configMap(`${name}-umbrella`)).toBeUndefined();
      expect(await configMap(`${name}-frontend`)).toBeUndefined();
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      // helm uninstall never deletes hook objects. helm 3 does not pass hooks through the post-renderer, so the
      // hook's ConfigMap has no owner and stays, as with operator-sdk; helm 4 post-renders hooks too, so the
      // garbage collector deletes it after the CR.
      if (hooksPostRendered(helm)) {
        await expect.poll(() => configMap(`${name}-backend-migrated`), POLL).toBeUndefined();
      } else {
        const leftover = await configMap(`${name}-backend-migrated`);
        expect(leftover?.metadata?.ownerReferences).toBeUndefined();
        await kube.core.deleteNamespacedConfigMap({ name: `${name}-backend-migrated`, namespace: ns });
      }
    });
  });
});
