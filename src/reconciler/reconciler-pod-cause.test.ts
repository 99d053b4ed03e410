// The reconciler when the dependents port names a pod's waiting container as the cause of Ready=False: the condition
// carries it, one Warning event per transition (not per reconcile), and a sooner requeue while the workload is not
// ready (backing off with the time Ready has been False); none of it once the release is ready.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions, TEST_START_MS } from '../../test/fakes/reconciler.js';
import { HelmReconciler } from './reconciler.js';
import type { HelmAppStatus, Readiness } from './types.js';

const PULL: Readiness = {
  status: 'False',
  reason: 'ImagePullBackOff',
  message: 'Deployment apps/web: pod web-7d9c-x: container nginx: ImagePullBackOff',
  recheck: true,
};
const CRASH: Readiness = {
  ...PULL,
  reason: 'CrashLoopBackOff',
  message: PULL.message.replace('ImagePull', 'CrashLoop'),
};
const COUNTS: Readiness = {
  status: 'False',
  reason: 'DeploymentNotReady',
  message: 'Deployment apps/web: Available: 0/1',
};
const READY: Readiness = { status: 'True', reason: 'AllObjectsReady', message: '1 object ready' };

function world() {
  const store = new CrStore(nginxCr({ replicaCount: 1 }));
  const { helm, history } = helmWithHistory();
  const events: string[] = [];
  const clock = new FakeClock({ nowMs: TEST_START_MS });
  let next: Readiness = COUNTS;
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      watch: { watchDependentResources: true },
      events: { event: (_cr, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
      crs: store.access,
      releases: { history: async () => history.list() },
      helm,
      clock,
      dependents: { afterDeploy: async () => next, forget: () => {} },
    }),
  );
  const signal = new AbortController().signal;
  return {
    events,
    clock,
    set answer(r: Readiness) {
      next = r;
    },
    ready: () => (store.live().status as HelmAppStatus).conditions.find((c) => c.type === 'Ready'),
    reconcile: () => reconciler.reconcile('apps/web', signal),
  };
}

describe('HelmReconciler when a pod is the cause of Ready=False', () => {
  it('writes the cause as Ready’s reason, without the recheck hint, and one Warning event for the transition', async () => {
    const w = world();
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 }); // counts only: no recheck asked
    w.answer = PULL;
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5_000 });
    expect(w.ready()).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'ImagePullBackOff',
      message: PULL.message,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    await w.reconcile();
    await w.reconcile();
    expect(w.events.filter((e) => e.startsWith('Warning'))).toEqual([`Warning ImagePullBackOff: ${PULL.message}`]);
    w.answer = CRASH;
    await w.reconcile();
    expect(w.events.filter((e) => e.startsWith('Warning'))).toHaveLength(2);
    expect(w.events.at(-1)).toBe(`Warning CrashLoopBackOff: ${CRASH.message}`);
  });

  it('backs the recheck off with the time Ready has been False, up to a minute', async () => {
    const w = world();
    w.answer = PULL;
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5_000 });
    w.clock.advance(40_000);
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 20_000 });
    w.clock.advance(3_600_000);
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
  });

  it('goes back to the periodic requeue, and sends no event, once the release is ready; a new cause is a new event', async () => {
    const w = world();
    w.answer = PULL;
    await w.reconcile();
    w.answer = READY;
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
    expect(w.ready()).toMatchObject({ status: 'True', reason: 'AllObjectsReady' });
    w.answer = PULL;
    await w.reconcile();
    expect(w.events.filter((e) => e.startsWith('Warning'))).toHaveLength(2);
  });

  it('sends no second event when the cause briefly goes (a lookup that found no waiting container) and comes back', async () => {
    const w = world();
    w.answer = PULL;
    await w.reconcile();
    w.answer = COUNTS;
    await w.reconcile();
    expect(w.ready()).toMatchObject({ reason: 'DeploymentNotReady' });
    w.answer = PULL;
    await w.reconcile();
    expect(w.ready()).toMatchObject({ reason: 'ImagePullBackOff' });
    expect(w.events.filter((e) => e.startsWith('Warning'))).toEqual([`Warning ImagePullBackOff: ${PULL.message}`]);
  });
});
