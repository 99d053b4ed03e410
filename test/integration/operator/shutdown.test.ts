// Stopping the operator never harms its operands: after SIGTERM and after SIGKILL the release's objects, the
// release records and the CR are exactly as they were, and the next operator adopts them without running helm.
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { isGone, type TestKube } from '../../support/kube.js';
import { type crClient, type OperatorProcess, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

describe('stopping the operator', () => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const poll = { timeout: 60_000, interval: 250 };
  const name = 'kept';

  const operator = () => f.start({ args: ['--zap-log-level=debug'] });
  /** uid and resourceVersion of every object of the release, the release records and the CR's status. */
  const snapshot = async () => {
    const [deploy, svc, cm] = await Promise.all([
      kube.apps.readNamespacedDeployment({ name: `${name}-nginx`, namespace: ns }),
      kube.core.readNamespacedService({ name: `${name}-nginx`, namespace: ns }),
      kube.core.readNamespacedConfigMap({ name: `${name}-nginx`, namespace: ns }),
    ]);
    const cr = await crs.get(name);
    return {
      objects: [deploy, svc, cm].map((o) => `${o.metadata?.uid}@${o.metadata?.resourceVersion}`),
      releases: await releaseRevisions(kube, ns, name),
      finalizers: cr.metadata.finalizers,
      status: cr.status,
    };
  };
  const reconciledOnce = (op: OperatorProcess) => op.output().includes(`"key":"${ns}/${name}"`);

  const f = useOperatorFixture({ kinds: ['Kept'], namespaces: ['op-stop'], start: false });
  beforeAll(() => {
    ({ kube, ns, crs } = f);
    // Every operator the test started is stopped by now: one more deletes the CR, so its release is uninstalled.
    f.onCleanup(async () => {
      const op = operator();
      try {
        await crs.delete(name);
        await vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), poll);
      } finally {
        await op.stop();
      }
    });
  });

  it('leaves the operands untouched on SIGTERM and on SIGKILL, and the next operator runs no helm', async () => {
    const first = operator();
    await crs.create(name, { replicaCount: 2 });
    await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, poll).toBe('True');
    // The Deployment's status moves until its pods are ready (never, without nodes): snapshot once Ready settled.
    const settled = inject('cluster').nodes > 0 ? 'True' : 'False';
    await expect.poll(async () => (await crs.condition(name, 'Ready'))?.status, poll).toBe(settled);
    const before = await snapshot();
    expect(before.releases).toEqual(['1:deployed']);

    expect(await first.stop()).toBe(0);
    expect(await snapshot()).toEqual(before);

    const second = operator();
    await expect.poll(() => reconciledOnce(second), poll).toBe(true);
    expect(second.helmCalls()).toEqual(['version']);
    await second.kill();
    expect(await snapshot()).toEqual(before);

    const third = operator();
    await expect.poll(() => reconciledOnce(third), poll).toBe(true);
    expect(third.helmCalls()).toEqual(['version']);
    expect(await snapshot()).toEqual(before);
    await third.stop();
  });
});
