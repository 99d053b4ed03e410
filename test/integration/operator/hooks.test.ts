// Helm hooks through the operator, end to end, with helm 3 and helm 4, on a cluster whose nodes run (fake) pods:
// the test plane's kwok nodes complete hook Jobs, or fail them when their pod says `testenv.local/fail: "true"`.
// test/fixtures/charts/hooks has a Job for each install, upgrade and delete event (install and delete hooks deleted
// once they succeeded, upgrade hooks kept until the next upgrade replaces them), a ServiceAccount hook shared by
// every event, and a `test` hook. Evidence that a hook ran: a watch on the namespace's Jobs sees each one complete
// (and be deleted, per its policy), and helm's release record stores each hook's last run.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { hookPhases, JobLog } from '../../support/hook-jobs.js';
import { isGone, isNotFound, type TestKube } from '../../support/kube.js';
import { type crClient, ROOT, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = `${ROOT}/test/fixtures/charts/hooks`;
const POLL = { timeout: 60_000, interval: 200 } as const;
/** The test's Job watch may deliver an event a moment after the operator's status already reflects it. */
const WATCH_LAG = { timeout: 5_000, interval: 50 } as const;
const EVENTS = ['pre-install', 'post-install', 'pre-upgrade', 'post-upgrade', 'pre-delete', 'post-delete'] as const;

const cluster = inject('cluster');
const helms = Object.entries(cluster.helms);

/** Why this cluster cannot run hook Jobs (no Ready node for their pods), or undefined when it can. */
const skipReason =
  cluster.nodes > 0
    ? undefined
    : `the ${cluster.mode} cluster has no Ready node, so hook Jobs never run` +
      (cluster.mode === 'local' ? ' (the plane was started with TESTENV_NODES=0)' : '');
if (skipReason) process.stderr.write(`hooks.test.ts: skipped: ${skipReason}\n`);

const title = `the operator with %s, for a chart with hook Jobs${skipReason ? ` (skipped: ${skipReason})` : ''}`;

describe.skipIf(skipReason !== undefined).each(helms)(title, (_, helm) => {
  const helm3 = /^v3\./.test(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }));
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const jobs = new JobLog();

  const f = useOperatorFixture({
    kinds: [{ kind: 'Hooked', chart: CHART }],
    namespaces: ['op-hooks'],
    helm,
    operator: () => ({ args: ['--reconcile-period=0'] }),
  });

  beforeAll(async () => {
    ({ kube, ns, crs } = f);
    await jobs.start(kube.kubeconfig, ns);
    f.onCleanup(async () => jobs.stop());
  });

  const condition = (name: string, type: string) => crs.condition(name, type);
  const revision = async (name: string) => (await crs.get(name)).status?.deployedRelease?.revision;
  const configMap = async (name: string) => {
    try {
      return await kube.core.readNamespacedConfigMap({ name, namespace: ns });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const jobNamed = async (name: string) => {
    try {
      return await kube.batch.readNamespacedJob({ name, namespace: ns });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const warnings = async (name: string, reason: string) =>
    (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items
      .filter((e) => e.type === 'Warning' && e.reason === reason)
      .map((e) => e.message ?? '');
  /**
   * helm's words for a failed hook Job, after the event's (`failed pre-install: `, `pre-upgrade hooks failed: `), as
   * helm 3.22 and 4.3 print them on the test plane; helm 3's two lines (a Go multi-error) joined by the operator.
   */
  const hookFailure = (job: string) =>
    helm3
      ? `1 error occurred: * job ${job} failed: BackoffLimitExceeded`
      : `resource Job/${ns}/${job} not ready. status: Failed, message: Job Failed. failed: 1/1`;
  /** Deletes what helm leaves behind of a release's hooks (helm 3's hook objects have no owner). */
  const deleteLeftoverJobs = async (release: string) => {
    for (const event of EVENTS) {
      await kube.batch
        .deleteNamespacedJob({ name: `${release}-${event}`, namespace: ns, propagationPolicy: 'Background' })
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    }
  };

  describe('through install, upgrades and deletion', () => {
    const name = 'app';
    const job = (event: string) => `${name}-${event}`;

    it('runs the pre-install and post-install hooks, in order, then reports Deployed', async () => {
      await f.create(name, { message: 'v1' });
      await expect.poll(async () => (await condition(name, 'Deployed'))?.reason, POLL).toBe('InstallSuccessful');
      expect(await revision(name)).toBe(1);
      expect((await configMap(`${name}-config`))?.data).toEqual({ message: 'v1' });

      // Each install hook Job ran once, completed, and was deleted (hook-succeeded); pre-install was done before
      // post-install started.
      await expect.poll(() => jobs.states(job('pre-install')), WATCH_LAG).toEqual(['complete+deleted']);
      await expect.poll(() => jobs.states(job('post-install')), WATCH_LAG).toEqual(['complete+deleted']);
      const [pre] = jobs.runs(job('pre-install'));
      const [post] = jobs.runs(job('post-install'));
      expect(pre?.deletedAt).toBeLessThan(post?.seenAt ?? 0);
      for (const event of ['pre-upgrade', 'post-upgrade', 'pre-delete', 'post-delete']) {
        await expect.poll(() => jobs.states(job(event)), WATCH_LAG).toEqual([]);
      }
      // helm recorded the runs; the `test` hook is never run by an install.
      expect(await hookPhases(kube, ns, name, 1)).toEqual({
        [`ServiceAccount/${name}-hooks`]: 'Succeeded',
        [`Job/${job('pre-install')}`]: 'Succeeded',
        [`Job/${job('post-install')}`]: 'Succeeded',
        [`Job/${job('pre-upgrade')}`]: '',
        [`Job/${job('post-upgrade')}`]: '',
        [`Job/${job('pre-delete')}`]: '',
        [`Job/${job('post-delete')}`]: '',
        [`Pod/${name}-test`]: '',
      });
      expect(await isGone(() => kube.core.readNamespacedPod({ name: `${name}-test`, namespace: ns }))).toBe(true);
      // The hooks' ServiceAccount was deleted once the event's hooks succeeded.
      expect(await isGone(() => kube.core.readNamespacedServiceAccount({ name: `${name}-hooks`, namespace: ns }))).toBe(
        true,
      );
    });

    it('runs the upgrade hooks on each upgrade, keeping the last run until the next upgrade replaces it', async () => {
      await crs.setSpec(name, { message: 'v2' });
      await expect.poll(() => revision(name), POLL).toBe(2);
      expect((await condition(name, 'Deployed'))?.reason).toBe('UpgradeSuccessful');
      expect((await configMap(`${name}-config`))?.data).toEqual({ message: 'v2' });
      await expect.poll(() => jobs.states(job('pre-upgrade')), WATCH_LAG).toEqual(['complete']);
      await expect.poll(() => jobs.states(job('post-upgrade')), WATCH_LAG).toEqual(['complete']);
      // before-hook-creation only: the completed Jobs stay in the cluster.
      for (const event of ['pre-upgrade', 'post-upgrade']) {
        expect((await jobNamed(job(event)))?.status?.succeeded).toBe(1);
      }
      const phases = await hookPhases(kube, ns, name, 2);
      expect(phases[`Job/${job('pre-upgrade')}`]).toBe('Succeeded');
      expect(phases[`Job/${job('post-upgrade')}`]).toBe('Succeeded');
      expect(phases[`Job/${job('pre-install')}`]).toBe('');

      // The next upgrade deletes the previous run before it creates the hook again.
      await crs.setSpec(name, { message: 'v3' });
      await expect.poll(() => revision(name), POLL).toBe(3);
      await expect.poll(() => jobs.states(job('pre-upgrade')), WATCH_LAG).toEqual(['complete+deleted', 'complete']);
      await expect.poll(() => jobs.states(job('post-upgrade')), WATCH_LAG).toEqual(['complete+deleted', 'complete']);
      await expect.poll(() => jobs.states(job('post-install')), WATCH_LAG).toEqual(['complete+deleted']);
      expect(await releaseRevisions(kube, ns, name)).toEqual(['1:superseded', '2:superseded', '3:deployed']);
    });

    it('runs the pre-delete and post-delete hooks when the CR is deleted, then frees the CR', async () => {
      await crs.delete(name);
      await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
      await expect.poll(() => jobs.states(job('pre-delete')), WATCH_LAG).toEqual(['complete+deleted']);
      await expect.poll(() => jobs.states(job('post-delete')), WATCH_LAG).toEqual(['complete+deleted']);
      const [pre] = jobs.runs(job('pre-delete'));
      const [post] = jobs.runs(job('post-delete'));
      expect(pre?.deletedAt).toBeLessThan(post?.seenAt ?? 0);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect(await configMap(`${name}-config`)).toBeUndefined();
      expect(await isGone(() => kube.core.readNamespacedServiceAccount({ name: `${name}-hooks`, namespace: ns }))).toBe(
        true,
      );
      // helm uninstall never deletes hook objects: the kept upgrade Jobs remain. helm 3 does not pass hooks
      // through the post-renderer, so they have no owner and stay (as with operator-sdk); helm 4 post-renders
      // hooks, so they are owned by the CR and the garbage collector deletes them after it.
      if (helm3) {
        for (const event of ['pre-upgrade', 'post-upgrade']) {
          expect((await jobNamed(job(event)))?.metadata?.ownerReferences).toBeUndefined();
        }
        await deleteLeftoverJobs(name);
      }
      for (const event of EVENTS) await expect.poll(() => jobNamed(job(event)), POLL).toBeUndefined();
    });
  });

  describe('when a pre-install hook fails', () => {
    const name = 'broken';
    const job = `${name}-pre-install`;

    it('reports InstallError naming the hook and its Job, retries after the backoff, and installs once fixed', async () => {
      await f.create(name, { fail: { 'pre-install': true } });
      // Note when each failure is counted (status.failures), until the first retry has failed too. The backoff does
      // not depend on helm: the retry (10 s later) is awaited with the first helm only, to keep the file short.
      const attempts = helm === helms[0]?.[1] ? 2 : 1;
      const seen = new Map<number, number>();
      await vi.waitFor(
        async () => {
          const failures = (await crs.get(name)).status?.failures ?? 0;
          if (failures > 0 && !seen.has(failures)) seen.set(failures, Date.now());
          expect(failures).toBeGreaterThanOrEqual(attempts);
        },
        { timeout: 60_000, interval: 200 },
      );
      const failed = await condition(name, 'ReleaseFailed');
      expect(failed).toMatchObject({ status: 'True', reason: 'InstallError' });
      expect(failed?.message).toContain(`failed pre-install: ${hookFailure(job)}`);
      expect(await condition(name, 'Deployed')).toBeUndefined();
      expect(
        (await warnings(name, 'InstallFailed')).some((m) => m.includes('failed pre-install') && m.includes(job)),
      ).toBe(true);
      // The retry came after the release backoff (10 s), not at once; each attempt ran the hook Job once (the
      // next attempt's before-hook-creation deleted the failed one), and nothing else was installed.
      if (attempts > 1) {
        const gap = (seen.get(2) ?? Number.NaN) - (seen.get(1) ?? Number.NaN);
        expect(gap).toBeGreaterThanOrEqual(9_000);
        expect(gap).toBeLessThan(30_000);
      }
      const failedRuns = Array.from({ length: attempts }, (_, i) => (i < attempts - 1 ? 'failed+deleted' : 'failed'));
      await expect.poll(() => jobs.states(job), WATCH_LAG).toEqual(failedRuns);
      await expect.poll(() => jobs.states(`${name}-post-install`), WATCH_LAG).toEqual([]);
      expect(await configMap(`${name}-config`)).toBeUndefined();
      // The failed install was uninstalled, so that the retry starts clean; that uninstall ran the chart's delete
      // hooks (as helm's own --atomic and operator-sdk do).
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      await expect
        .poll(() => jobs.states(`${name}-pre-delete`), WATCH_LAG)
        .toEqual(failedRuns.map(() => 'complete+deleted'));

      // A fixed spec is installed at once (a new generation resets the backoff).
      const fixedAt = Date.now();
      await crs.setSpec(name, { fail: {} });
      await expect.poll(async () => (await condition(name, 'Deployed'))?.reason, POLL).toBe('InstallSuccessful');
      expect(Date.now() - fixedAt).toBeLessThan(9_000);
      const fixed = await crs.get(name);
      expect(fixed.status?.conditions?.find((c) => c.type === 'ReleaseFailed')).toBeUndefined();
      expect(fixed.status?.failures).toBeUndefined();
      await expect
        .poll(() => jobs.states(job), WATCH_LAG)
        .toEqual([...failedRuns.map(() => 'failed+deleted'), 'complete+deleted']);
      await expect.poll(() => jobs.states(`${name}-post-install`), WATCH_LAG).toEqual(['complete+deleted']);
      expect(await releaseRevisions(kube, ns, name)).toEqual(['1:deployed']);

      await crs.delete(name);
      await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
      await deleteLeftoverJobs(name);
    });
  });

  describe('when a pre-upgrade hook fails', () => {
    const name = 'upfail';
    const job = `${name}-pre-upgrade`;

    it('reports UpgradeError naming the hook, rolls back, and upgrades once fixed', async () => {
      await f.create(name, { message: 'v1' });
      await expect.poll(async () => (await condition(name, 'Deployed'))?.reason, POLL).toBe('InstallSuccessful');

      await crs.setSpec(name, { message: 'v2', fail: { 'pre-upgrade': true } });
      await expect.poll(async () => (await condition(name, 'ReleaseFailed'))?.reason, POLL).toBe('UpgradeError');
      expect((await condition(name, 'ReleaseFailed'))?.message).toContain(
        `pre-upgrade hooks failed: ${hookFailure(job)}`,
      );
      await expect.poll(() => jobs.states(job), WATCH_LAG).toEqual(['failed']);
      // The hook failed before helm touched the release's objects; the rollback to revision 1 is revision 3.
      await expect
        .poll(() => releaseRevisions(kube, ns, name), POLL)
        .toEqual(['1:superseded', '2:failed', '3:deployed']);
      expect((await configMap(`${name}-config`))?.data).toEqual({ message: 'v1' });

      await crs.setSpec(name, { message: 'v3' });
      await expect.poll(async () => (await condition(name, 'ReleaseFailed'))?.status, POLL).toBeUndefined();
      expect((await condition(name, 'Deployed'))?.reason).toBe('UpgradeSuccessful');
      expect(await revision(name)).toBe(4);
      expect((await configMap(`${name}-config`))?.data).toEqual({ message: 'v3' });
      await expect.poll(() => jobs.states(job), WATCH_LAG).toEqual(['failed+deleted', 'complete']);

      await crs.delete(name);
      await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
      await deleteLeftoverJobs(name);
    });
  });
});
