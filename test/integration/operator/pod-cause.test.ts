// Ready names why a Deployment is not ready from its pods, on the plane with fake nodes and the real helm: a pod the
// fake kubelet keeps Pending with its container waiting in ImagePullBackOff (kwok stage testenv-pod-pull-fail, a
// status written through the real API) turns Ready False with reason ImagePullBackOff naming the Deployment, the pod
// and the container (never the image), one Warning event however many reconciles follow, and a fixed spec brings
// Ready=True. Reconciles of the ready release send no pod LIST (the operator's debug log of each LIST; the API
// server's counter is shared with the other files' operators). Needs TESTENV_NODES > 0.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { RECONCILE_REQUESTED_AT } from '../../../src/reconciler/start/requests.js';
import type { TestKube } from '../../support/kube.js';
import type { crClient } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = fileURLToPath(new URL('../../fixtures/charts/readiness', import.meta.url));
const POLL = { timeout: 60_000, interval: 100 } as const;
const nodes = inject('cluster').nodes;

describe.skipIf(nodes === 0)('Ready naming a pod that cannot pull its image (needs TESTENV_NODES > 0)', () => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const name = 'pull';
  const web = `${name}-web`;
  const f = useOperatorFixture({
    kinds: [{ kind: 'Puller', chart: CHART }],
    namespaces: ['op-pull'],
    operator: () => ({ args: ['--zap-log-level=debug'] }),
  });

  const ready = () => crs.condition(name, 'Ready');
  /** The CR's Warning events as "reason: message" with their count. */
  const warnings = async () =>
    (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items
      .filter((e) => e.type === 'Warning' && e.involvedObject.kind === 'Puller')
      .map((e) => ({ reason: e.reason, message: e.message, count: e.count ?? e.series?.count ?? 1 }));
  /** The pod LISTs this operator sent (its debug line before each). */
  const podLists = () =>
    f.op
      .output()
      .split('\n')
      .filter((l) => l.includes('Listing the pods of a not-ready workload')).length;
  /** Reconciles of the CR logged so far (debug "Reconciled" lines). */
  const reconciles = () =>
    f.op
      .output()
      .split('\n')
      .filter((l) => l.includes('"Reconciled"') && l.includes(`${ns}/${name}`)).length;

  beforeAll(() => {
    ({ kube, crs } = f);
    ns = f.ns;
  });

  it('is False with reason ImagePullBackOff naming the Deployment, pod and container, and one Warning event', async () => {
    const t0 = performance.now();
    await f.create(name, { replicas: 1, pullFails: true });
    // The pod, as the API server has it: Pending, its container waiting in ImagePullBackOff.
    const pod = await vi.waitFor(async () => {
      const pods = await kube.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${web}` });
      const p = pods.items.find((i) => i.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff');
      expect(p?.status?.phase).toBe('Pending');
      return p?.metadata?.name ?? '';
    }, POLL);
    const c = await vi.waitFor(async () => {
      const cond = await ready();
      expect(cond).toMatchObject({ status: 'False', reason: 'ImagePullBackOff' });
      return cond;
    }, POLL);
    const shownMs = performance.now() - t0;
    expect(c?.message).toBe(`Deployment ${ns}/${web}: pod ${pod}: container web: ImagePullBackOff`);
    expect(c?.message).not.toContain('nginx:1.27'); // the image (a spec value)
    await vi.waitFor(async () => {
      expect(await warnings()).toEqual([{ reason: 'ImagePullBackOff', message: c?.message, count: 1 }]);
    }, POLL);
    // The sooner requeue keeps reconciling while the Deployment is not ready: no second event for the same cause.
    const seen = reconciles();
    await vi.waitFor(() => expect(reconciles()).toBeGreaterThanOrEqual(seen + 2), { timeout: 30_000, interval: 250 });
    expect(await warnings()).toEqual([{ reason: 'ImagePullBackOff', message: c?.message, count: 1 }]);
    expect(f.op.output()).not.toContain('Cannot list pods');
    // The lookup is a LIST of the namespace's pods by the Deployment's selector (the count sees it: it can count).
    expect(podLists()).toBeGreaterThan(0);
    console.info(`ImagePullBackOff in Ready ${Math.round(shownMs)} ms after the CR was created`);
  });

  it('turns True once the spec fixes the pods', async () => {
    const t0 = performance.now();
    await crs.setSpec(name, { replicas: 1, pullFails: false });
    await vi.waitFor(async () => {
      expect(await ready()).toMatchObject({ status: 'True', reason: 'AllObjectsReady' });
    }, POLL);
    console.info(`Ready=True ${Math.round(performance.now() - t0)} ms after the spec was fixed`);
    const deployment = await kube.apps.readNamespacedDeployment({ name: web, namespace: ns });
    expect(deployment.status?.availableReplicas).toBe(1);
    expect((await warnings()).map((w) => w.reason)).toEqual(['ImagePullBackOff']);
  });

  it('sends no pod LIST when it reconciles the ready release', async () => {
    await vi.waitFor(async () => expect((await ready())?.status).toBe('True'), POLL);
    const before = podLists();
    const seen = reconciles();
    for (const at of ['r1', 'r2', 'r3']) {
      await crs.annotate(name, { [RECONCILE_REQUESTED_AT]: at });
      await vi.waitFor(
        async () => expect((await crs.get(name)).status).toMatchObject({ lastHandledReconcileAt: at }),
        POLL,
      );
    }
    // The log line of a reconcile can come after its status write: wait for the third one's, with a deadline.
    await vi.waitFor(() => expect(reconciles()).toBeGreaterThanOrEqual(seen + 3), POLL);
    expect(podLists()).toBe(before);
    console.info(`pod LISTs over ${reconciles() - seen} reconciles of the ready release: ${podLists() - before}`);
  });
});
