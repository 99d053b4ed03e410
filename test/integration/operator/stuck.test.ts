// Releases left in pending-* by a killed operator (and its killed helm) are recovered by the next operator without
// a human; and a SIGTERM whose grace runs out during a long install leaves the release failed, not pending. Hooks
// that wait are made with the test chart's hook Job, which only completes when the test marks it complete.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isGone, type TestKube } from '../../support/kube.js';
import {
  completeHookJobs,
  type crClient,
  FAILING_CHART,
  type OperatorProcess,
  releaseRevisions,
} from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

describe('stuck releases', () => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const names = new Set<string>();
  const operators: OperatorProcess[] = [];
  const poll = { timeout: 60_000, interval: 250 };

  const operator = (args: string[] = []) => {
    const op = f.start({ args });
    operators.push(op);
    return op;
  };
  const create = async (name: string, spec: unknown) => {
    names.add(name);
    await crs.create(name, spec);
  };
  const latestStatus = async (name: string) => (await releaseRevisions(kube, ns, name)).at(-1) ?? 'none';
  const recoveredEvents = async (name: string) =>
    (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items
      .filter((e) => e.reason === 'ReleaseRecovered')
      .map((e) => e.message ?? '');
  /** Completes the chart's hook Jobs every 200 ms until stopped (helm waits for them; nothing else runs Jobs here). */
  const hookCompleter = () => {
    let running = Promise.resolve();
    const timer = setInterval(() => {
      running = running.then(() =>
        completeHookJobs(kube, ns).then(
          () => undefined,
          () => undefined,
        ),
      );
    }, 200);
    return async () => {
      clearInterval(timer);
      await running;
    };
  };

  const f = useOperatorFixture({
    kinds: [{ kind: 'Stuck', chart: FAILING_CHART }],
    namespaces: ['op-stuck'],
    start: false,
  });
  beforeAll(() => {
    ({ kube, ns, crs } = f);
    // Every operator is stopped by now: one last operator frees every CR; hooks are completed so that nothing waits.
    f.onCleanup(async () => {
      const stopHooks = hookCompleter();
      const op = operator();
      try {
        for (const name of names) await crs.delete(name);
        for (const name of names) {
          await vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), poll);
        }
      } finally {
        await op.stop();
        await stopHooks();
      }
    });
  });

  // Every test's operators stop even when an assertion fails, so that no operator serves the next test.
  afterEach(async () => {
    for (const op of operators) await op.stop();
  });

  it('uninstalls and reinstalls a release stuck in pending-install', async () => {
    const first = operator();
    await create('stuck-install', { hook: 'pre-install' });
    await expect.poll(() => latestStatus('stuck-install'), poll).toBe('1:pending-install');
    await first.kill();
    expect(await latestStatus('stuck-install')).toBe('1:pending-install');

    await crs.setSpec('stuck-install', { data: 'after' });
    const second = operator();
    await expect.poll(async () => (await crs.condition('stuck-install', 'Deployed'))?.status, poll).toBe('True');
    expect(await releaseRevisions(kube, ns, 'stuck-install')).toEqual(['1:deployed']);
    await expect
      .poll(() => recoveredEvents('stuck-install'), poll)
      .toEqual(['Release stuck-install was stuck in pending-install; uninstalled it to install again']);
    await second.stop();
  });

  it('rolls back a release stuck in pending-upgrade, then upgrades to the current spec', async () => {
    const first = operator();
    await create('stuck-upgrade', { data: 'v1' });
    await expect.poll(async () => (await crs.condition('stuck-upgrade', 'Deployed'))?.status, poll).toBe('True');
    await crs.setSpec('stuck-upgrade', { data: 'v2', hook: 'pre-upgrade' });
    await expect.poll(() => latestStatus('stuck-upgrade'), poll).toBe('2:pending-upgrade');
    await first.kill();

    await crs.setSpec('stuck-upgrade', { data: 'v3' });
    const second = operator();
    await expect
      .poll(
        async () => (await kube.core.readNamespacedConfigMap({ name: 'stuck-upgrade-data', namespace: ns })).data?.data,
        poll,
      )
      .toBe('v3');
    await expect.poll(() => latestStatus('stuck-upgrade'), poll).toBe('4:deployed');
    // Helm's rollback leaves the interrupted revision as it was; only the latest revision matters to helm.
    expect(await releaseRevisions(kube, ns, 'stuck-upgrade')).toEqual([
      '1:superseded',
      '2:pending-upgrade',
      '3:superseded',
      '4:deployed',
    ]);
    await expect
      .poll(() => recoveredEvents('stuck-upgrade'), poll)
      .toEqual(['Release stuck-upgrade was stuck in pending-upgrade; rolled back to revision 1']);
    await second.stop();
  });

  it('rolls back a release stuck in pending-rollback to its last deployed revision', async () => {
    const first = operator();
    // Revision 1 carries a pre-rollback hook, so that rolling back to it waits.
    await create('stuck-rollback', { data: 'v1', hook: 'pre-rollback' });
    await expect.poll(async () => (await crs.condition('stuck-rollback', 'Deployed'))?.status, poll).toBe('True');
    // A failing upgrade makes the operator roll back to revision 1, which then waits on the hook.
    await crs.setSpec('stuck-rollback', { data: 'v2', hook: 'pre-rollback', invalidObject: true });
    await expect.poll(() => latestStatus('stuck-rollback'), poll).toBe('3:pending-rollback');
    await first.kill();

    await crs.setSpec('stuck-rollback', { data: 'v3' });
    const stopHooks = hookCompleter();
    const second = operator();
    try {
      await expect
        .poll(
          async () =>
            (await kube.core.readNamespacedConfigMap({ name: 'stuck-rollback-data', namespace: ns })).data?.data,
          poll,
        )
        .toBe('v3');
      // helm writes the ConfigMap before it marks the record deployed: poll, the record follows within moments.
      await expect.poll(() => latestStatus('stuck-rollback'), poll).toMatch(/:deployed$/);
      await expect.poll(() => recoveredEvents('stuck-rollback'), poll).toHaveLength(1);
      const events = await recoveredEvents('stuck-rollback');
      expect(events[0]).toMatch(/^Release stuck-rollback was stuck in pending-rollback; rolled back to revision \d+$/);
    } finally {
      await second.stop();
      await stopHooks();
    }
  });

  it('leaves the release failed, not pending, when the grace after SIGTERM runs out during an install', async () => {
    const op = operator(['--graceful-shutdown-timeout=1s']);
    await create('sigterm-install', { hook: 'pre-install' });
    await expect.poll(() => latestStatus('sigterm-install'), poll).toBe('1:pending-install');
    const started = Date.now();
    expect(await op.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await latestStatus('sigterm-install')).toBe('1:failed');
  });
});
