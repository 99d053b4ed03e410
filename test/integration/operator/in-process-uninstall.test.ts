// The operator's in-process uninstall on the real plane, with helm 3 and helm 4: six CRs deleted while no operator runs
// (their finalizers hold them) are all uninstalled by the first deletion pass of the next operator (one worker), with
// no helm process: every release's objects and records gone, each CR with its own event and its finalizer removed.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { isGone, type TestKube } from '../../support/kube.js';
import { type crClient, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const POLL = { timeout: 60_000, interval: 200 } as const;
const NAMES = ['gone-a', 'gone-b', 'gone-c', 'gone-d', 'gone-e', 'gone-f'];

describe.each(Object.entries(inject('cluster').helms))('in-process uninstalls with %s', (_, helm) => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const f = useOperatorFixture({
    namespaces: ['op-inproc'],
    helm,
    operator: () => ({ args: ['--reconcile-period=0', '--max-concurrent-reconciles=1'] }),
  });
  beforeAll(() => {
    ({ kube, ns, crs } = f);
  });

  const reasons = async (name: string) =>
    (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items
      .map((e) => e.reason ?? '')
      .filter((r) => r.startsWith('Uninstall'));
  const objectsOf = async (release: string) => {
    const selector = { namespace: ns, labelSelector: `app.kubernetes.io/instance=${release}` };
    const [deployments, services, configMaps] = await Promise.all([
      kube.apps.listNamespacedDeployment(selector),
      kube.core.listNamespacedService(selector),
      kube.core.listNamespacedConfigMap(selector),
    ]);
    return [...deployments.items, ...services.items, ...configMaps.items].map((o) => o.metadata?.name);
  };

  it('uninstalls them all in the first pass, beside its own, without a helm process', async () => {
    for (const name of NAMES) await f.create(name, { replicaCount: 1 });
    for (const name of NAMES)
      await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    expect((await objectsOf('gone-a')).length).toBeGreaterThan(0);

    await f.op.kill();
    for (const name of NAMES) await crs.delete(name); // held by the finalizer: no operator runs
    const op = f.start();

    for (const name of NAMES) await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
    expect(op.helmCalls().filter((c) => c.startsWith('uninstall'))).toEqual([]);
    expect(op.output()).toContain('"batch":6,"msg":"Uninstalled together"');
    for (const name of NAMES) {
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect(await objectsOf(name)).toEqual([]);
      expect(await reasons(name)).toEqual(['UninstallSucceeded']);
    }
  });
});
