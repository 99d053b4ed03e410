// Failure handling against the real control plane and helm, with a chart whose failures are switched on by values:
// a failed install is uninstalled and retried once the spec is fixed; a failed upgrade is rolled back and reported
// as UpgradeError, the REVISION column showing the rollback's revision (what `helm history` shows deployed, also after
// two failed upgrades); retries of a broken spec back off; a name over Helm's 53 characters gets a clear condition.
// A chart that does not render is render-failure.test.ts.
import { describe, expect, inject, it, vi } from 'vitest';
import { releaseRevisions } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { run } from '../../support/run.js';

describe('failure handling', () => {
  const f = useOperatorFixture('Failing', 'op-fail');
  const poll = POLL;
  const create = (name: string, spec: unknown) => f.create(name, spec);
  /** `kubectl get <plural> <name>`'s columns, by header (the CRD has the scaffold's printer columns). */
  const getColumns = async (name: string): Promise<Record<string, string>> => {
    const kind = f.kinds[0];
    const out = await run(inject('cluster').kubectl ?? 'kubectl', [
      '--kubeconfig',
      inject('cluster').kubeconfig,
      'get',
      `${kind?.plural}.${kind?.group}`,
      name,
      '-n',
      f.ns,
    ]);
    const [header = '', row = ''] = out.trim().split('\n');
    const cells = row.trim().split(/\s{2,}/);
    return Object.fromEntries(
      header
        .trim()
        .split(/\s{2,}/)
        .map((h, i) => [h, cells[i] ?? '']),
    );
  };

  describe('when the install fails after helm recorded the release', () => {
    it('uninstalls it, reports ReleaseFailed/InstallError, and installs once the spec is fixed', async () => {
      await create('bad-install', { invalidObject: true });
      await expect
        .poll(async () => (await f.crs.condition('bad-install', 'ReleaseFailed'))?.reason, poll)
        .toBe('InstallError');
      const failed = await f.crs.get('bad-install');
      expect(failed.status?.conditions?.find((c) => c.type === 'ReleaseFailed')?.message).toMatch(/99999|port/);
      expect(failed.status?.failures).toBeGreaterThanOrEqual(1);
      // The failed install was removed, so that a retry starts clean.
      await expect.poll(() => releaseRevisions(f.kube, f.ns, 'bad-install'), poll).toEqual([]);

      await f.crs.setSpec('bad-install', { invalidObject: false });
      await expect.poll(async () => (await f.crs.condition('bad-install', 'Deployed'))?.status, poll).toBe('True');
      await expect.poll(() => getColumns('bad-install'), poll).toMatchObject({ STATUS: 'Deployed', REVISION: '1' });
      const fixed = await f.crs.get('bad-install');
      expect(fixed.status?.conditions?.find((c) => c.type === 'ReleaseFailed')).toBeUndefined();
      expect(fixed.status?.failures).toBeUndefined();
      expect(await releaseRevisions(f.kube, f.ns, 'bad-install')).toEqual(['1:deployed']);
    });
  });

  describe('when an upgrade fails', () => {
    it('rolls back to the last good revision, reports UpgradeError, and upgrades once the spec is fixed', async () => {
      await create('bad-upgrade', { data: 'v1' });
      await expect.poll(async () => (await f.crs.condition('bad-upgrade', 'Deployed'))?.status, poll).toBe('True');

      await f.crs.setSpec('bad-upgrade', { data: 'v2', invalidObject: true });
      await expect
        .poll(async () => (await f.crs.condition('bad-upgrade', 'ReleaseFailed'))?.reason, poll)
        .toBe('UpgradeError');
      expect((await f.crs.condition('bad-upgrade', 'ReleaseFailed'))?.message).toMatch(/UPGRADE FAILED|99999|port/);
      // 1 deployed, 2 the failed upgrade, 3 the rollback to 1.
      await expect
        .poll(() => releaseRevisions(f.kube, f.ns, 'bad-upgrade'), poll)
        .toEqual(['1:superseded', '2:failed', '3:deployed']);
      // kubectl get says so at a glance: the scaffold's Status column, and the revision deployed now (the rollback's).
      await expect
        .poll(() => getColumns('bad-upgrade'), poll)
        .toMatchObject({ STATUS: 'UpgradeFailed', REVISION: '3' });
      const cm = await f.kube.core.readNamespacedConfigMap({ name: 'bad-upgrade-data', namespace: f.ns });
      expect(cm.data?.data).toBe('v1');

      await f.crs.setSpec('bad-upgrade', { data: 'v3' });
      await expect
        .poll(
          async () =>
            (await f.kube.core.readNamespacedConfigMap({ name: 'bad-upgrade-data', namespace: f.ns })).data?.data,
          poll,
        )
        .toBe('v3');
      await expect
        .poll(async () => (await f.crs.condition('bad-upgrade', 'ReleaseFailed'))?.status, poll)
        .toBeUndefined();
      expect((await f.crs.condition('bad-upgrade', 'Deployed'))?.reason).toBe('UpgradeSuccessful');
    });
  });

  describe('when two upgrades fail in a row', () => {
    /** The revision `helm history` shows deployed (real helm reading the release records). */
    const helmDeployed = async (name: string) => {
      const { kubeconfig, helms } = inject('cluster');
      const helm = Object.values(helms)[0] ?? 'helm';
      const out = await run(helm, ['history', name, '-n', f.ns, '--kubeconfig', kubeconfig, '-o', 'json']);
      const history = JSON.parse(out) as { revision: number; status: string }[];
      return history.find((h) => h.status === 'deployed')?.revision;
    };
    /** The CR's REVISION column, status.deployedRelease.revision and helm history's deployed revision, read together. */
    const revisions = async (name: string) => ({
      column: Number((await getColumns(name)).REVISION),
      status: (await f.crs.get(name)).status?.deployedRelease?.revision,
      helm: await helmDeployed(name),
    });
    const revisionCount = async (name: string) => (await releaseRevisions(f.kube, f.ns, name)).length;

    it("shows the deployed release's revision after each rollback, and after the recovery", async () => {
      await create('twice', { data: 'v1' });
      await expect.poll(async () => (await f.crs.condition('twice', 'Deployed'))?.status, poll).toBe('True');
      await f.crs.setSpec('twice', { data: 'v2' });
      await expect.poll(() => revisions('twice'), poll).toEqual({ column: 2, status: 2, helm: 2 });

      // Each failed upgrade is recorded and rolled back: two revisions more, the newest deployed.
      for (const [data, count] of [
        ['v3', 4],
        ['v4', 6],
      ] as const) {
        await f.crs.setSpec('twice', { data, invalidObject: true });
        await expect.poll(() => revisionCount('twice'), poll).toBeGreaterThanOrEqual(count);
        await expect
          .poll(async () => (await f.crs.condition('twice', 'ReleaseFailed'))?.reason, poll)
          .toBe('UpgradeError');
      }
      // Read together until they agree (a retry after the backoff may be rolling back meanwhile): all three the same.
      await expect
        .poll(async () => {
          const r = await revisions('twice');
          return r.column === r.status && r.status === r.helm ? r.helm : -1;
        }, poll)
        .toBeGreaterThanOrEqual(6);
      expect((await getColumns('twice')).STATUS).toBe('UpgradeFailed');

      await f.crs.setSpec('twice', { data: 'v5' });
      await expect.poll(async () => (await f.crs.condition('twice', 'ReleaseFailed'))?.status, poll).toBeUndefined();
      const fixed = await revisions('twice');
      expect(fixed.helm).toBeGreaterThanOrEqual(7);
      expect(fixed).toEqual({ column: fixed.helm, status: fixed.helm, helm: fixed.helm });
      expect((await getColumns('twice')).STATUS).toBe('Deployed');
    });
  });

  describe('when a spec stays broken', () => {
    it('retries with a growing delay (10 s, then 20 s) instead of a storm of revisions', async () => {
      await create('always-broken', { invalidObject: true });
      // Note the moment each failure is counted, until three attempts have failed.
      const seen = new Map<number, number>();
      await vi.waitFor(
        async () => {
          const failures = (await f.crs.get('always-broken')).status?.failures ?? 0;
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
      expect(await releaseRevisions(f.kube, f.ns, 'always-broken')).toEqual([]);
    });
  });

  describe('when the CR name is longer than 53 characters', () => {
    it('sets Irreconcilable with a message naming the limit, and runs no helm for it', async () => {
      const name = `n${'x'.repeat(53)}`;
      await create(name, {});
      await expect
        .poll(async () => (await f.crs.condition(name, 'Irreconcilable'))?.message, poll)
        .toContain('at most 53');
    });
  });
});
