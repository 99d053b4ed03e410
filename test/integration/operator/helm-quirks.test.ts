// A chart with what published charts contain and helm accepts, against the real control plane and helm 3 and 4:
// a repeated mapping key, a template saved with a byte order mark, one with CRLF line ends, documents that are
// only comments or `---`, YAML 1.1 booleans, an `imagePullPolicy: ""` the API server defaults, and a container env
// list that repeats a name (server-side apply rejects it; helm 4 falls back to client-side apply). It installs, stays
// idle with no drift reported and no write, has real drift put back (scaled, deleted, the defaulted field changed by
// hand), upgrades and uninstalls.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { deploymentSettled, isGone, type TestKube } from '../../support/kube.js';
import { type crClient, type OperatorProcess, ROOT, releaseRevisions } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { idleFor } from '../../support/reconciles.js';

const CHART = `${ROOT}/test/fixtures/charts/quirks`;
const PERIOD_S = 2;
const DRIFT_REASONS = ['DriftCorrected', 'DriftRepairFailed', 'DriftUnconfirmed'];

const helms = Object.entries(inject('cluster').helms);
const nodes = inject('cluster').nodes;

describe.each(helms)('the operator with %s, for a chart with the YAML and lists helm accepts', (_, helm) => {
  const helm4 = !/^v3\./.test(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }));
  let kube: TestKube;
  let ns: string;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;
  const name = 'pg';
  const db = `${name}-postgresql`;

  const readDeployment = () => kube.apps.readNamespacedDeployment({ name: db, namespace: ns });
  /** Every object of the chart, read fresh, by kind. */
  const objects = async () => ({
    Deployment: await readDeployment(),
    Service: await kube.core.readNamespacedService({ name: db, namespace: ns }),
    ConfigMap: await kube.core.readNamespacedConfigMap({ name: `${name}-bom`, namespace: ns }),
    ServiceAccount: await kube.core.readNamespacedServiceAccount({ name: `${name}-crlf`, namespace: ns }),
  });
  const versions = async () =>
    Object.fromEntries(Object.entries(await objects()).map(([k, o]) => [k, o.metadata?.resourceVersion]));
  /** The drift events on the CR by reason, one message per occurrence (the recorder aggregates repeats). */
  const driftEvents = async (): Promise<Record<string, string[]>> => {
    const list = await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` });
    const out: Record<string, string[]> = Object.fromEntries(DRIFT_REASONS.map((r) => [r, []]));
    for (const e of list.items) {
      if (!DRIFT_REASONS.includes(e.reason ?? '')) continue;
      for (let i = 0; i < (e.count ?? 1); i++) out[e.reason ?? '']?.push(e.message ?? '');
    }
    return out;
  };
  const settled = (replicas: number) => deploymentSettled(kube, { namespace: ns, name: db }, replicas, nodes);
  const idle = (n: number) => idleFor(op, `${ns}/${name}`, n, PERIOD_S * 1000);
  const container = async () => (await readDeployment()).spec?.template.spec?.containers[0];

  const f = useOperatorFixture({
    kinds: [{ kind: 'Quirk', chart: CHART }],
    namespaces: ['op-quirks'],
    helm,
    operator: () => ({ args: [`--reconcile-period=${PERIOD_S}s`, '--zap-log-level=debug'] }),
  });

  beforeAll(async () => {
    ({ kube, ns, op, crs } = f);
    await f.create(name, {});
    await vi.waitFor(async () => expect((await crs.condition(name, 'Deployed'))?.status).toBe('True'), POLL);
    await settled(1);
  });

  it('installs every object as helm reads the YAML: the last of a repeated key, no BOM, CRLF, off and no as false', async () => {
    const { Service, ConfigMap, ServiceAccount, Deployment } = await objects();
    expect(Service.metadata?.labels).toMatchObject({ tier: 'second' });
    expect(Service.metadata?.annotations?.['quirks.example.com/second']).toBe('kept');
    expect(Service.metadata?.annotations?.['quirks.example.com/first']).toBeUndefined();
    expect(ConfigMap.data).toEqual({ saved: 'with a byte order mark', data: 'v1' });
    expect(ServiceAccount.automountServiceAccountToken).toBe(false);
    expect(Deployment.spec?.template.spec?.enableServiceLinks).toBe(false);
    const c = Deployment.spec?.template.spec?.containers[0];
    expect(c?.imagePullPolicy).toBe('IfNotPresent');
    expect(c?.env?.map((e) => e.name)).toEqual(['PGUSER', 'PGDATA', 'PGUSER']);
    const manifest = (await crs.get(name)).status?.deployedRelease?.manifest ?? '';
    expect(manifest).toMatch(/imagePullPolicy: (""|'')\n/);
  });

  it('with helm 4, installs client-side after its server-side apply refused the repeated env name', async () => {
    const list = await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` });
    const refused = list.items.filter((e) => e.reason === 'ServerSideApplyRefused').map((e) => e.message ?? '');
    if (!helm4) {
      expect(refused).toEqual([]);
      return;
    }
    expect(refused).toEqual([expect.stringMatching(/duplicate entries for key \[name="PGUSER"\].*client-side apply/)]);
    expect((await crs.condition(name, 'ReleaseFailed'))?.status).toBeUndefined();
  });

  it('stays idle for three reconcile periods with no drift reported and none of its objects written', async () => {
    const before = await versions();
    await idle(3);
    expect(await driftEvents()).toEqual({ DriftCorrected: [], DriftRepairFailed: [], DriftUnconfirmed: [] });
    expect(await versions()).toEqual(before);
  });

  it('puts back a Deployment scaled by hand', async () => {
    const d = await readDeployment();
    await kube.apps.replaceNamespacedDeployment({
      name: db,
      namespace: ns,
      body: { ...d, spec: { ...(d.spec ?? { selector: {}, template: {} }), replicas: 3 } },
    });
    await vi.waitFor(async () => {
      expect((await readDeployment()).spec?.replicas).toBe(1);
      expect((await driftEvents()).DriftCorrected).toContainEqual(expect.stringContaining(`Deployment ${ns}/${db}`));
    }, POLL);
    expect((await driftEvents()).DriftRepairFailed).toEqual([]);
    await settled(1);
  });

  it('puts back the defaulted imagePullPolicy changed by hand', async () => {
    // Read-modify-write, again on a conflict: the Deployment's controller writes its status meanwhile.
    for (let attempt = 1; ; attempt++) {
      const d = await readDeployment();
      const [c, ...rest] = d.spec?.template.spec?.containers ?? [];
      if (!c || !d.spec?.template.spec) throw new Error('no container');
      const spec = { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec } } };
      spec.template.spec.containers = [{ ...c, imagePullPolicy: 'Always' }, ...rest];
      const written = await kube.apps
        .replaceNamespacedDeployment({ name: db, namespace: ns, body: { ...d, spec } })
        .then(
          () => true,
          (err: unknown) => {
            if (attempt >= 5 || !(err instanceof Error && 'code' in err && err.code === 409)) throw err;
            return false;
          },
        );
      if (written) break;
    }
    await vi.waitFor(async () => expect((await container())?.imagePullPolicy).toBe('IfNotPresent'), POLL);
    expect((await container())?.env?.map((e) => e.name)).toEqual(['PGUSER', 'PGDATA', 'PGUSER']);
    expect((await driftEvents()).DriftRepairFailed).toEqual([]);
    await settled(1);
  });

  it('recreates the Deployment deleted by hand, its repeated env name included', async () => {
    const uid = (await readDeployment()).metadata?.uid;
    await kube.apps.deleteNamespacedDeployment({ name: db, namespace: ns });
    // The event is written after the object (CI once read the events 88 ms in, between the two).
    await vi.waitFor(async () => {
      const d = await readDeployment();
      expect(d.metadata?.uid).not.toBe(uid);
      expect(d.spec?.template.spec?.containers[0]?.env?.map((e) => e.name)).toEqual(['PGUSER', 'PGDATA', 'PGUSER']);
      expect((await driftEvents()).DriftCorrected).toContainEqual(
        expect.stringContaining(`Recreated Deployment ${ns}/${db}`),
      );
    }, POLL);
    expect((await driftEvents()).DriftRepairFailed).toEqual([]);
    await settled(1);
  });

  it('then stays idle again: no further drift over three more periods', async () => {
    const events = await driftEvents();
    const before = await versions();
    await idle(3);
    expect(await driftEvents()).toEqual(events);
    expect(await versions()).toEqual(before);
  });

  it('upgrades on a spec change', async () => {
    await crs.setSpec(name, { data: 'v2' });
    await vi.waitFor(async () => {
      const cm = await kube.core.readNamespacedConfigMap({ name: `${name}-bom`, namespace: ns });
      expect(cm.data?.data).toBe('v2');
      expect((await crs.condition(name, 'Deployed'))?.reason).toBe('UpgradeSuccessful');
    }, POLL);
    expect(await crs.condition(name, 'ReleaseFailed')).toBeUndefined();
    expect((await releaseRevisions(kube, ns, name)).at(-1)).toMatch(/:deployed$/);
  });

  it('uninstalls when the CR is deleted', async () => {
    await crs.delete(name);
    await vi.waitFor(async () => {
      expect(await isGone(() => crs.get(name))).toBe(true);
      expect(await isGone(readDeployment)).toBe(true);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
    }, POLL);
  });
});
