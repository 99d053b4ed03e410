// The Ready condition on the plane with fake nodes, against the real helm: it follows the release's Deployment
// from not ready to Ready through the dependent watches (no helm run for that), and a rollout whose pods fail
// keeps it False naming the Deployment and its crash-looping pod, while operator-sdk's Deployed condition says the
// upgrade succeeded.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TestKube } from '../../support/kube.js';
import { type crClient, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = fileURLToPath(new URL('../../fixtures/charts/readiness', import.meta.url));
const POLL = { timeout: 60_000, interval: 100 } as const;
const nodes = inject('cluster').nodes;

describe.skipIf(nodes === 0)('the Ready condition (needs a plane with nodes: TESTENV_NODES > 0)', () => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const name = 'probe';
  const web = `${name}-web`;
  const f = useOperatorFixture({ kinds: [{ kind: 'Probe', chart: CHART }], namespaces: ['op-ready'] });

  const ready = () => crs.condition(name, 'Ready');
  const deployed = () => crs.condition(name, 'Deployed');
  /** The pods of the Deployment's newest template (fixture/revision), as "phase/ready/waiting-reason". */
  const podStates = async (revision: string) => {
    const pods = await kube.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${web}` });
    return pods.items
      .filter((p) => p.metadata?.annotations?.['fixture/revision'] === revision && !p.metadata?.deletionTimestamp)
      .map((p) => {
        const ok = p.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '?';
        const waiting = p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? '';
        return `${p.status?.phase}/${ok}/${waiting}`;
      });
  };

  beforeAll(async () => {
    ({ kube, crs } = f);
    ns = f.ns;
  });

  it('is False naming the Deployment while its pods start, then True, with no helm run in between', async () => {
    await f.create(name, { replicas: 2, podDelayMs: 4000 });
    await vi.waitFor(async () => expect((await deployed())?.status).toBe('True'), POLL);
    // The pods become ready 4 s after they start: the Deployment is not available yet.
    await vi.waitFor(async () => {
      const c = await ready();
      expect(c).toMatchObject({ status: 'False', reason: 'DeploymentNotReady' });
      expect(c?.message).toMatch(new RegExp(`^Deployment ${ns}/${web}: `));
    }, POLL);

    await vi.waitFor(async () => {
      expect(await ready()).toMatchObject({ status: 'True', reason: 'AllObjectsReady', message: '3 objects ready' });
    }, POLL);
    const deployment = await kube.apps.readNamespacedDeployment({ name: web, namespace: ns });
    expect(deployment.status?.availableReplicas).toBe(2);
    // Only the install ran: the change came from the Deployment's status, through the dependent watch.
    expect(await releaseRevisions(kube, ns, name)).toEqual(['1:deployed']);
    expect((await crs.get(name)).status?.deployedRelease?.revision).toBe(1);
  });

  it('stays False naming the Deployment when a rollout brings pods that fail, while Deployed says the upgrade worked', async () => {
    await crs.setSpec(name, { replicas: 2, revision: '2', failPods: true });
    await vi.waitFor(async () => {
      expect(await deployed()).toMatchObject({ status: 'True', reason: 'UpgradeSuccessful' });
      expect((await crs.get(name)).status?.deployedRelease?.revision).toBe(2);
    }, POLL);
    // The new ReplicaSet's pod runs and crash-loops (the fake kubelet's failure stage) ...
    await vi.waitFor(async () => expect(await podStates('2')).toContain('Running/False/CrashLoopBackOff'), POLL);
    // ... and the Ready condition names the Deployment that cannot finish its rollout, and why: its new pod's
    // container waits in CrashLoopBackOff (read from the pods, since the Deployment's status does not say).
    await vi.waitFor(async () => {
      const c = await ready();
      expect(c).toMatchObject({ status: 'False', reason: 'CrashLoopBackOff' });
      expect(c?.message).toMatch(
        new RegExp(`^Deployment ${ns}/${web}: pod ${web}-[a-z0-9-]+: container web: CrashLoopBackOff$`),
      );
    }, POLL);
    // The rollout is stuck: maxSurge lets one new pod start, and it never becomes ready, so the two old ones stay.
    const deployment = await kube.apps.readNamespacedDeployment({ name: web, namespace: ns });
    expect(deployment.status).toMatchObject({ replicas: 3, updatedReplicas: 1 });
    expect(await podStates('2')).toEqual(['Running/False/CrashLoopBackOff']);
  });

  it('becomes True again once the chart values fix the pods', async () => {
    await crs.setSpec(name, { replicas: 2, revision: '3', failPods: false });
    await vi.waitFor(async () => {
      expect(await ready()).toMatchObject({ status: 'True', reason: 'AllObjectsReady' });
      expect((await crs.get(name)).status?.deployedRelease?.revision).toBe(3);
    }, POLL);
    const deployment = await kube.apps.readNamespacedDeployment({ name: web, namespace: ns });
    expect(deployment.status?.updatedReplicas).toBe(2);
    expect(deployment.status?.availableReplicas).toBe(2);
  });
});
