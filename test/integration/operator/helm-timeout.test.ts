// helm's --timeout as a setting, and a worker held by slow helm made visible, against the real operator with helm 3
// and helm 4: a pre-install hook Job that never completes (test/fixtures/charts/slow-hook; its pod fits no node)
// makes helm wait. With the CR's helm-timeout annotation (20s, over the watch's helmTimeout of 30s) the operator
// records HelmStillRunning and Reconciling=True while helm waits, then ReleaseFailed in helm's own words after about
// 20s rather than 5 minutes; the exec-duration histogram and the still-running gauge show the long run. Without the
// annotation the watch's helmTimeout applies, and a hook that completes ends the run with Deployed.
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { boundAddress } from '../../support/addresses.js';
import { completeHookJobs, ROOT, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const SLOW_HOOK_CHART = join(ROOT, 'test/fixtures/charts/slow-hook');
const HELM_TIMEOUT = 'helm.sdk.operatorframework.io/helm-timeout';
const poll = { timeout: 60_000, interval: 250 };
const helms = Object.entries(inject('cluster').helms);
/** helm's timeout in its own words: helm 3 names the hook phase, helm 4 also the Job it waited for. */
const TIMED_OUT =
  /timed out waiting for the condition|Job\/[a-z0-9-]+\/held-migrate not ready.*context deadline exceeded/;

describe.each(helms)('with %s, a helm run held by a hook that never completes', (_, helm) => {
  const f = useOperatorFixture({
    kinds: [{ kind: 'SlowHook', chart: SLOW_HOOK_CHART, extra: '  helmTimeout: 30s\n' }],
    namespaces: ['op-helm-timeout'],
    helm,
    operator: () => ({ args: ['--metrics-bind-address=127.0.0.1:0'] }),
  });
  let metrics = '';
  beforeAll(async () => {
    const address = await vi.waitFor(() => {
      const bound = boundAddress(f.op.output(), 'Serving metrics');
      if (bound === undefined) throw new Error('the operator has not logged its metrics address yet');
      return bound;
    }, poll);
    metrics = `http://${address}/metrics`;
  });

  const scrape = async () => (await fetch(metrics)).text();
  const eventsOf = async (name: string, reason: string) =>
    (await f.kube.core.listNamespacedEvent({ namespace: f.ns, fieldSelector: `involvedObject.name=${name}` })).items
      .filter((e) => e.reason === reason)
      .map((e) => `${e.type} ${e.message ?? ''}`);

  it('warns at startup that operator-sdk ignores the watch key helmTimeout', () => {
    expect(f.op.output()).toMatch(
      /"msg":"[^"]*Kind=SlowHook\): helmTimeout: operator-sdk's helm-operator ignores this key, so the project behaves differently there: helm keeps its default --timeout of 5m/,
    );
  });

  it("shows HelmStillRunning while helm waits, then fails in helm's words at the CR's 20s", async () => {
    const created = Date.now();
    await f.create('held', {}, { [HELM_TIMEOUT]: '20s' });
    // The threshold is 5s; a busy event loop may round the elapsed time up a second or two.
    const notice =
      /^helm install of release held has been running for [5-9]s \(timeout 20s\); hooks or waits are holding a worker$/;

    // A quarter of the 20s in: the event, Reconciling in the status and the gauge, while helm still waits.
    await expect.poll(() => eventsOf('held', 'HelmStillRunning'), poll).toEqual([expect.stringMatching(/^Normal /)]);
    const [event = ''] = await eventsOf('held', 'HelmStillRunning');
    const message = event.slice('Normal '.length);
    expect(message).toMatch(notice);
    await expect.poll(async () => (await f.crs.condition('held', 'Reconciling'))?.message, poll).toBe(message);
    expect(await f.crs.condition('held', 'Reconciling')).toMatchObject({ status: 'True', reason: 'HelmStillRunning' });
    expect(await releaseRevisions(f.kube, f.ns, 'held')).toEqual(['1:pending-install']);
    expect(await f.crs.condition('held', 'ReleaseFailed')).toBeUndefined();
    expect(await scrape()).toContain('helm_operator_helm_still_running{action="install"} 1');

    // helm's own timeout, reported in its words and naming the hook, about 20s after the start (not 5 minutes).
    await expect.poll(async () => (await f.crs.condition('held', 'ReleaseFailed'))?.reason, poll).toBe('InstallError');
    const elapsed = Date.now() - created;
    expect(elapsed).toBeGreaterThanOrEqual(20_000);
    expect(elapsed).toBeLessThan(50_000);
    const failed = await f.crs.condition('held', 'ReleaseFailed');
    expect(failed?.message).toContain('Error: INSTALLATION FAILED: failed pre-install: ');
    expect(failed?.message).toMatch(TIMED_OUT);
    expect(await f.crs.condition('held', 'Reconciling')).toBeUndefined();
    // The event is written after the status: waited for, not read once.
    await expect
      .poll(() => eventsOf('held', 'InstallFailed'), poll)
      .toEqual([expect.stringMatching(new RegExp(`^Warning Install of release held failed: .*(${TIMED_OUT.source})`))]);
    expect(f.op.helmCalls()).toContain('install');

    // One install ran between 10 s and 30 s and failed: the exec-duration histogram shows the long run.
    const body = await scrape();
    expect(body).toContain(
      'helm_operator_helm_exec_duration_seconds_bucket{le="10",action="install",result="error"} 0',
    );
    expect(body).toMatch(
      /^helm_operator_helm_exec_duration_seconds_bucket\{le="30",action="install",result="error"\} [1-9]/m,
    );
  });

  it("uses the watch's helmTimeout without the annotation, and ends with Deployed once the hook completes", async () => {
    await f.create('watch-timeout', {});
    // 30s / 4 = 7.5s, shown in whole seconds.
    const message =
      /^Normal helm install of release watch-timeout has been running for [7-9]s \(timeout 30s\); hooks or waits are holding a worker$/;
    await expect
      .poll(() => eventsOf('watch-timeout', 'HelmStillRunning'), poll)
      .toEqual([expect.stringMatching(message)]);
    await expect
      .poll(async () => (await f.crs.condition('watch-timeout', 'Reconciling'))?.reason, poll)
      .toBe('HelmStillRunning');

    await expect.poll(() => completeHookJobs(f.kube, f.ns), poll).toBeGreaterThan(0);
    await expect.poll(async () => (await f.crs.condition('watch-timeout', 'Deployed'))?.status, poll).toBe('True');
    expect(await f.crs.condition('watch-timeout', 'Reconciling')).toBeUndefined();
    expect(await f.crs.condition('watch-timeout', 'ReleaseFailed')).toBeUndefined();
  });
});
