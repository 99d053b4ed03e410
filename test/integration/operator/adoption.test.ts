// Switching from operator-sdk's helm-operator, on the real plane with helm 3 and 4: releases made as operator-sdk
// makes them (test/support/osdk-release.ts) are adopted: no upgrade, no revision, every object's uid, generation and
// field managers as they were, a ReleaseAdopted event, the fingerprint on the record. A release plain helm made gets
// its marks; changed values and an older chart are upgraded at once; a spec change upgrades an adopted one.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { TestKube } from '../../support/kube.js';
import { type crClient, releaseRevisions, SAMPLE_CHART } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { installAsOperatorSdk, type ObjectRef, objectIdentities } from '../../support/osdk-release.js';

const FINGERPRINT_LABEL = 'helm.sdk.operatorframework.io/fingerprint';
const ADOPTED = ['web-1', 'web-2', 'web-3'];
const cluster = inject('cluster');
const helms = Object.entries(cluster.helms);
const kubectl = cluster.kubectl ?? 'kubectl';
const helm3 = cluster.helms['helm-v3'] ?? Object.values(cluster.helms)[0] ?? 'helm';

describe.each(helms)(
  "releases operator-sdk's helm-operator installed, taken over by the operator with %s",
  (_, helm) => {
    const dir = mkdtempSync(join(tmpdir(), 'adoption-'));
    // The chart as it was before this operator's copy: one more label in its ConfigMap.
    const oldChart = join(dir, 'nginx');
    cpSync(SAMPLE_CHART, oldChart, { recursive: true });
    const cm = join(oldChart, 'templates/configmap.yaml');
    writeFileSync(cm, readFileSync(cm, 'utf8').replace('  labels:\n', '  labels:\n    tier: old\n'));

    let kube: TestKube;
    let ns: string;
    let crs: ReturnType<typeof crClient>;
    const objects = new Map<string, ObjectRef[]>();
    const before = new Map<string, Awaited<ReturnType<typeof objectIdentities>>>();

    const f = useOperatorFixture({
      kinds: [{ kind: 'Adopted', chart: SAMPLE_CHART }],
      namespaces: ['op-adopt'],
      helm,
      start: false,
      operator: () => ({ args: ['--reconcile-period=0', '--max-concurrent-reconciles=2'] }),
    });
    f.onFinalCleanup(async () => rmSync(dir, { recursive: true, force: true }));

    const identities = (name: string) => objectIdentities(kubectl, kube.kubeconfig, ns, objects.get(name) ?? []);
    const events = async (name: string) =>
      (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items;
    const recordLabels = async (name: string, revision: number) =>
      (await kube.core.readNamespacedSecret({ name: `sh.helm.release.v1.${name}.v${revision}`, namespace: ns }))
        .metadata;
    const upgrades = () => f.op.helmCalls().filter((c) => c.startsWith('upgrade') && !c.includes('dry-run'));

    beforeAll(async () => {
      ({ kube, ns, crs } = f);
      const install = async (name: string, spec: Record<string, unknown>, more: object = {}) => {
        const kind = f.kind;
        const made = await installAsOperatorSdk({
          kube,
          helm3,
          kubectl,
          kind,
          namespace: ns,
          name,
          spec,
          chart: SAMPLE_CHART,
          chartName: 'nginx',
          ...more,
        });
        f.track(kind, ns, name);
        objects.set(name, made);
      };
      for (const [i, name] of ADOPTED.entries()) await install(name, { replicaCount: 1, index: `hello ${i}` });
      // Values that differ from the spec (the CR was edited while no operator ran), and an older chart.
      await install('changed', { index: 'new' }, { values: { index: 'old' } });
      await install('old-chart', { index: 'same' }, { chart: oldChart });
      // A release plain `helm install` made: nothing on its objects says whose they are.
      await install('plain-helm', { index: 'plain' }, { marks: false });
      for (const name of objects.keys()) before.set(name, await identities(name));
      f.start();
    });

    it('adopts each release whose rendering is the same: no upgrade, no revision, no object touched', async () => {
      for (const name of ADOPTED) {
        await expect.poll(async () => (await events(name)).some((e) => e.reason === 'ReleaseAdopted'), POLL).toBe(true);
      }
      for (const name of ADOPTED) {
        expect(await releaseRevisions(kube, ns, name)).toEqual(['1:deployed']);
        const record = await recordLabels(name, 1);
        expect(record?.labels?.[FINGERPRINT_LABEL]).toMatch(/^[0-9a-f]{63}$/);
        expect(record?.labels).toMatchObject({ owner: 'helm', name, status: 'deployed', version: '1' });
        expect(record?.ownerReferences?.map((r) => r.name)).toEqual([name]);
        // uid and generation as they were, and no write by helm or drift repair since operator-sdk's (no pod restarted).
        expect(await identities(name)).toEqual(before.get(name));
        const status = (await crs.get(name)).status;
        expect(status?.conditions?.find((c) => c.type === 'Deployed')).toMatchObject({
          status: 'True',
          reason: 'InstallSuccessful',
        });
        expect(status?.deployedRelease).toMatchObject({ name, revision: 1 });
        const adopted = (await events(name)).find((e) => e.reason === 'ReleaseAdopted');
        expect(adopted).toMatchObject({ type: 'Normal' });
        expect(adopted?.message).toBe(
          `Adopted release ${name} (revision 1) without an upgrade: its manifest is what this chart and these values render`,
        );
      }
      // One dry run per release checked, and no upgrade of any adopted one.
      expect(f.op.helmCalls().filter((c) => c === 'upgrade dry-run').length).toBeGreaterThanOrEqual(ADOPTED.length);
      for (const name of ADOPTED) {
        const lines = f.op
          .output()
          .split('\n')
          .filter((l) => l.includes('"msg":"Adopted release"'));
        expect(lines.filter((l) => l.includes(`"release":"${name}"`))).toHaveLength(1);
      }
    });

    it("adopts a release without operator-sdk's marks too, and marks its objects in place: metadata only", async () => {
      const name = 'plain-helm';
      await expect.poll(async () => (await events(name)).some((e) => e.reason === 'ReleaseAdopted'), POLL).toBe(true);
      expect(await releaseRevisions(kube, ns, name)).toEqual(['1:deployed']);
      const uid = (await crs.get(name)).metadata.uid;
      await expect
        .poll(async () => {
          const d = await kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns });
          return [d.metadata?.labels?.['helm.sdk.operatorframework.io/chart'], d.metadata?.ownerReferences?.[0]?.uid];
        }, POLL)
        .toEqual(['nginx', uid]);
      const after = await identities(name);
      for (const [ref, was] of Object.entries(before.get(name) ?? {})) {
        expect(after[ref]).toMatchObject({ uid: was.uid, generation: was.generation });
      }
    });

    it('upgrades at once the releases whose rendering really differs: values changed, or an older chart', async () => {
      for (const name of ['changed', 'old-chart']) {
        await expect.poll(() => releaseRevisions(kube, ns, name), POLL).toEqual(['1:superseded', '2:deployed']);
        expect((await recordLabels(name, 2))?.labels?.[FINGERPRINT_LABEL]).toMatch(/^[0-9a-f]{63}$/);
        await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.reason, POLL).toBe('UpgradeSuccessful');
        expect((await events(name)).some((e) => e.reason === 'ReleaseAdopted')).toBe(false);
      }
      const cm = await kube.core.readNamespacedConfigMap({ name: 'old-chart-nginx', namespace: ns });
      expect(cm.metadata?.labels?.tier).toBeUndefined();
      expect((await kube.core.readNamespacedConfigMap({ name: 'changed-nginx', namespace: ns })).data).toEqual({
        'index.html': 'new',
      });
      expect(upgrades().length).toBe(2);
    });

    it('upgrades an adopted release on a spec change, as any other', async () => {
      await crs.setSpec('web-1', { replicaCount: 2, index: 'hello 0' });
      await expect.poll(() => releaseRevisions(kube, ns, 'web-1'), POLL).toEqual(['1:superseded', '2:deployed']);
      await expect
        .poll(
          async () => (await kube.apps.readNamespacedDeployment({ name: 'web-1-nginx', namespace: ns })).spec?.replicas,
          POLL,
        )
        .toBe(2);
      expect(upgrades().length).toBe(3);
      // The others stay as they were.
      for (const name of ADOPTED.slice(1)) {
        expect(await releaseRevisions(kube, ns, name)).toEqual(['1:deployed']);
        expect(await identities(name)).toEqual(before.get(name));
      }
    });
  },
);
