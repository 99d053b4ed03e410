// Failure handling against the real control plane and helm, with a chart whose failures are switched on by values:
// a failed install is uninstalled and retried once the spec is fixed; a failed upgrade is rolled back and reported
// as UpgradeError; a template `fail` is Irreconcilable without harming other CRs; retries of a broken spec back off;
// a name over Helm's 53 characters gets a clear condition.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import {
  crClient,
  createTestCrd,
  FAILING_CHART,
  type OperatorProcess,
  releaseRevisions,
  runCleanups,
  startOperator,
  watchesYaml,
} from '../../support/operator.js';

describe('failure handling', () => {
  let kube: TestKube;
  let ns: string;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;
  const names = new Set<string>();
  const cleanups: (() => Promise<unknown>)[] = [];
  const poll = { timeout: 60_000, interval: 250 };
  const create = async (name: string, spec: unknown) => {
    names.add(name);
    await crs.create(name, spec);
  };

  beforeAll(async () => {
    kube = testKube();
    const [kind, deleteCrd] = await createTestCrd(kube, 'Failing');
    const [n, deleteNs] = await createTestNamespace(kube, 'op-fail');
    ns = n;
    crs = crClient(kube, kind, ns);
    cleanups.push(deleteCrd, deleteNs);
    op = startOperator({ watches: watchesYaml([{ ...kind, chart: FAILING_CHART }]), env: { WATCH_NAMESPACE: ns } });
    cleanups.push(async () => {
      // Delete every CR while the operator runs, so that it uninstalls the releases and frees the CRs.
      for (const name of names) await crs.delete(name);
      for (const name of names) {
        await vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), poll);
      }
      await op.stop();
    });
  });

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  describe('when the install fails after helm recorded the release', () => {
    it('uninstalls it, reports ReleaseFailed/InstallError, and installs once the spec is fixed', async () => {
      await create('bad-install', { invalidObject: true });
      await expect
        .poll(async () => (await crs.condition('bad-install', 'ReleaseFailed'))?.reason, poll)
        .toBe('InstallError');
      const failed = await crs.get('bad-install');
      expect(failed.status?.conditions?.find((c) => c.type === 'ReleaseFailed')?.message).toMatch(/99999|port/);
      expect(failed.status?.failures).toBeGreaterThanOrEqual(1);
      // The failed install was removed, so that a retry starts clean.
      await expect.poll(() => releaseRevisions(kube, ns, 'bad-install'), poll).toEqual([]);

      await crs.setSpec('bad-install', { invalidObject: false });
      await expect.poll(async () => (await crs.condition('bad-install', 'Deployed'))?.status, poll).toBe('True');
      const fixed = await crs.get('bad-install');
      expect(fixed.status?.conditions?.find((c) => c.type === 'ReleaseFailed')).toBeUndefined();
      expect(fixed.status?.failures).toBeUndefined();
      expect(await releaseRevisions(kube, ns, 'bad-install')).toEqual(['1:deployed']);
    });
  });

  describe('when an upgrade fails', () => {
    it('rolls back to the last good revision, reports UpgradeError, and upgrades once the spec is fixed', async () => {
      await create('bad-upgrade', { data: 'v1' });
      await expect.poll(async () => (await crs.condition('bad-upgrade', 'Deployed'))?.status, poll).toBe('True');

      await crs.setSpec('bad-upgrade', { data: 'v2', invalidObject: true });
      await expect
        .poll(async () => (await crs.condition('bad-upgrade', 'ReleaseFailed'))?.reason, poll)
        .toBe('UpgradeError');
      expect((await crs.condition('bad-upgrade', 'ReleaseFailed'))?.message).toMatch(/UPGRADE FAILED|99999|port/);
      // 1 deployed, 2 the failed upgrade, 3 the rollback to 1.
      await expect
        .poll(() => releaseRevisions(kube, ns, 'bad-upgrade'), poll)
        .toEqual(['1:superseded', '2:failed', '3:deployed']);
      const cm = await kube.core.readNamespacedConfigMap({ name: 'bad-upgrade-data', namespace: ns });
      expect(cm.data?.data).toBe('v1');

      await crs.setSpec('bad-upgrade', { data: 'v3' });
      await expect
        .poll(
          async () => (await kube.core.readNamespacedConfigMap({ name: 'bad-upgrade-data', namespace: ns })).data?.data,
          poll,
        )
        .toBe('v3');
      await expect
        .poll(async () => (await crs.condition('bad-upgrade', 'ReleaseFailed'))?.status, poll)
        .toBeUndefined();
      expect((await crs.condition('bad-upgrade', 'Deployed'))?.reason).toBe('UpgradeSuccessful');
    });
  });

  describe('when the chart template calls fail', () => {
    it('sets Irreconcilable with the error, while other CRs still reconcile', async () => {
      await create('render-error', { fail: 'the chart refuses these values' });
      await create('healthy', { data: 'ok' });
      await expect
        .poll(async () => (await crs.condition('render-error', 'Irreconcilable'))?.reason, poll)
        .toBe('ReconcileError');
      const message = (await crs.condition('render-error', 'Irreconcilable'))?.message;
      expect(message).toContain('execution error at (failing/templates/configmap.yaml');
      // The text passed to `fail` comes from the values, so it is redacted like any value.
      expect(message).not.toContain('the chart refuses these values');
      expect(await crs.condition('render-error', 'ReleaseFailed')).toBeUndefined();
      await expect.poll(async () => (await crs.condition('healthy', 'Deployed'))?.status, poll).toBe('True');
      expect(await releaseRevisions(kube, ns, 'render-error')).toEqual([]);
    });
  });

  describe('when a spec stays broken', () => {
    it('retries with a growing delay (10 s, then 20 s) instead of a storm of revisions', async () => {
      await create('always-broken', { invalidObject: true });
      // Note the moment each failure is counted, until three attempts have failed.
      const seen = new Map<number, number>();
      await vi.waitFor(
        async () => {
          const failures = (await crs.get('always-broken')).status?.failures ?? 0;
          if (failures > 0 && !seen.has(failures)) seen.set(failures, Date.now());
          expect(failures).toBeGreaterThanOrEqual(3);
        },
        { timeout: 90_000, interval: 200 },
      );
      const at = (n: number) => seen.get(n) ?? Number.NaN;
      const gap1 = at(2) - at(1);
      const gap2 = at(3) - at(2);
      expect(gap1).toBeGreaterThanOrEqual(9_000);
      expect(gap2).toBeGreaterThanOrEqual(18_000);
      // Each attempt leaves nothing behind: the failed install is uninstalled every time.
      expect(await releaseRevisions(kube, ns, 'always-broken')).toEqual([]);
    });
  });

  describe('when the CR name is longer than 53 characters', () => {
    it('sets Irreconcilable with a message naming the limit, and runs no helm for it', async () => {
      const name = `n${'x'.repeat(53)}`;
      await create(name, {});
      await expect
        .poll(async () => (await crs.condition(name, 'Irreconcilable'))?.message, poll)
        .toContain('at most 53');
    });
  });
});
