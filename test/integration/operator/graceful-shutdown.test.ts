// A graceful stop never cuts helm mid-upgrade: SIGTERM to the operator (as the kubelet sends it to PID 1) or SIGINT
// to its whole process group (Ctrl-C in a terminal) while helm waits on a pre-upgrade hook: no new reconcile, the
// upgrade runs on, the release ends deployed at the new revision and the operator exits 0 once it is done. When the
// grace (--graceful-shutdown-timeout) runs out, helm is stopped: the release is failed, not pending. With leader
// election the stopping leader keeps its Lease until its helm is done, so the standby never runs helm beside it.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { isGone, type TestKube, uniqueName } from '../../support/kube.js';
import {
  completeHookJobs,
  type crClient,
  FAILING_CHART,
  type OperatorProcess,
  releaseRevisions,
} from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';
import { groupMembers } from '../../support/operator-process.js';
import { until } from '../../support/until.js';

describe('graceful shutdown', () => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const poll = { timeout: 60_000, interval: 200 };
  const names = new Set<string>();
  const GRACE_S = 60;

  const operator = (graceS = GRACE_S, more: string[] = []) =>
    f.start({ args: [`--graceful-shutdown-timeout=${graceS}s`, ...more] });
  const latest = async (name: string) => (await releaseRevisions(kube, ns, name)).at(-1) ?? 'none';
  const helmRunning = (op: OperatorProcess) => groupMembers(op.pid).filter((m) => m.comm.startsWith('helm'));
  const deployedData = async (name: string) =>
    (await kube.core.readNamespacedConfigMap({ name: `${name}-data`, namespace: ns })).data?.data;

  const f = useOperatorFixture({
    kinds: [{ kind: 'Graceful', chart: FAILING_CHART }],
    namespaces: ['op-graceful'],
    start: false,
  });
  beforeAll(() => {
    ({ kube, ns, crs } = f);
    // Every operator the tests started has exited: one more deletes the CRs, completing any hook left waiting.
    f.onCleanup(async () => {
      const op = operator();
      try {
        for (const n of names) await crs.delete(n);
        for (const n of names) {
          await vi.waitFor(async () => {
            await completeHookJobs(kube, ns);
            expect(await isGone(() => crs.get(n))).toBe(true);
          }, poll);
        }
      } finally {
        await op.stop();
      }
    });
  });

  /** A CR Deployed at revision 1, then its spec changed so that helm's upgrade waits on a pre-upgrade hook Job. */
  const upgradeHeldByHook = async (op: OperatorProcess, name: string) => {
    names.add(name);
    await crs.create(name, { data: 'v1' });
    await expect.poll(() => latest(name), poll).toBe('1:deployed');
    await crs.setSpec(name, { data: 'v2', hook: 'pre-upgrade' });
    await expect.poll(() => latest(name), poll).toBe('2:pending-upgrade');
    await expect.poll(() => helmRunning(op).length, poll).toBeGreaterThan(0);
  };

  /** After the stop began: helm still runs and the upgrade is still pending; then the hook completes. */
  const finishUpgradeAfterStop = async (op: OperatorProcess, name: string) => {
    await expect.poll(() => op.output(), poll).toContain('Stopping: waiting for running helm processes to finish');
    // The operator's own stop must not have touched helm: still running, the revision still pending.
    expect(op.output()).not.toContain('Second signal');
    expect(helmRunning(op).length).toBeGreaterThan(0);
    expect(await latest(name)).toBe('2:pending-upgrade');
    // helm records the revision pending before it creates the hook's Job: complete it once it exists.
    await expect.poll(() => completeHookJobs(kube, ns), poll).toBeGreaterThan(0);
  };

  it('on SIGTERM to the operator, lets the running upgrade finish: deployed at revision 2, exit 0', async () => {
    const op = operator();
    await upgradeHeldByHook(op, 'term');
    const t0 = performance.now();
    process.kill(op.pid, 'SIGTERM'); // as the kubelet signals a container: its PID 1 only
    await finishUpgradeAfterStop(op, 'term');
    expect(await op.exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(GRACE_S * 1000);
    expect(await releaseRevisions(kube, ns, 'term')).toEqual(['1:superseded', '2:deployed']);
    expect(await deployedData('term')).toBe('v2');
    expect(op.output()).toContain('"msg":"Stopped"');
    // The reconcile ran to its end: the CR's status says so.
    expect((await crs.condition('term', 'Deployed'))?.reason).toBe('UpgradeSuccessful');
  });

  it('on SIGINT to its whole process group (Ctrl-C), helm gets none: deployed at revision 2, exit 0', async () => {
    const op = operator();
    await upgradeHeldByHook(op, 'ctrl-c');
    process.kill(-op.pid, 'SIGINT'); // a terminal's Ctrl-C: every process of the foreground group
    await finishUpgradeAfterStop(op, 'ctrl-c');
    expect(await op.exited).toBe(0);
    expect(await releaseRevisions(kube, ns, 'ctrl-c')).toEqual(['1:superseded', '2:deployed']);
    expect(await deployedData('ctrl-c')).toBe('v2');
  });

  it('stops helm when the grace runs out: the release is failed, not pending, and the operator exits 0', async () => {
    const op = operator(2);
    await upgradeHeldByHook(op, 'late');
    const t0 = performance.now();
    process.kill(op.pid, 'SIGTERM');
    expect(await op.exited).toBe(0);
    // 2 s of grace, then helm's own SIGTERM handling (it records the failure at once); its kill grace is 30 s.
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(op.output()).toContain('Graceful shutdown timed out: stopping the helm processes still running');
    expect(await latest('late')).toBe('2:failed');
  });

  it('keeps the Lease while its helm runs, so the standby starts none beside it; releases it once done', async () => {
    const leaseId = uniqueName('graceful');
    const elect = ['--leader-elect', `--leader-election-id=${leaseId}`, `--leader-election-namespace=${ns}`];
    const identity = (op: OperatorProcess) =>
      /"msg":"Successfully acquired lease"/.test(op.output())
        ? /"identity":"([^"]+)","msg":"Successfully acquired lease"/.exec(op.output())?.[1]
        : undefined;
    const holder = async () =>
      (await kube.coordination.readNamespacedLease({ name: leaseId, namespace: ns })).spec?.holderIdentity;
    const lead = operator(GRACE_S, elect);
    await expect.poll(() => identity(lead), poll).toBeDefined();
    const standby = operator(GRACE_S, elect);
    await expect.poll(() => standby.output(), poll).toContain('Attempting to acquire leader lease');
    await upgradeHeldByHook(lead, 'handover');
    process.kill(lead.pid, 'SIGTERM');
    await expect.poll(() => lead.output(), poll).toContain('Stopping: waiting for running helm processes to finish');
    // Past a whole lease duration (15 s) and more: the Lease is still the stopping leader's, renewed, and the
    // standby has run no helm on the release whose upgrade is still pending.
    // Checked every 500 ms until 20 s have passed; a wrong holder or a standby helm call fails at once.
    const heldUntil = performance.now() + 20_000;
    await until(
      'the stopping leader to hold its Lease for 20 s',
      async () => {
        expect(await holder()).toBe(identity(lead));
        expect(standby.helmCalls()).toEqual(['version']);
        return performance.now() >= heldUntil;
      },
      { timeoutMs: 30_000, everyMs: 500, probeErrors: 'throw' },
    );
    expect(await latest('handover')).toBe('2:pending-upgrade');
    await expect.poll(() => completeHookJobs(kube, ns), poll).toBeGreaterThan(0);
    expect(await lead.exited).toBe(0);
    const released = performance.now();
    await expect.poll(() => identity(standby), { timeout: 10_000, interval: 100 }).toBeDefined();
    expect(performance.now() - released).toBeLessThan(5_000); // released, not left to expire
    expect(await releaseRevisions(kube, ns, 'handover')).toEqual(['1:superseded', '2:deployed']);
    await standby.stop();
  });
});
