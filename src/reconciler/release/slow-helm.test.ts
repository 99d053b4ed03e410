import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../test/fakes/clock.js';
import { FakeHelm, HELM_V3 } from '../../../test/fakes/helm.js';
import { flush } from '../../../test/support/flush.js';
import { chain } from '../../helm/middleware.js';
import { type StillRunning, slowHelmNotice, stillRunningMessage } from './slow-helm.js';

const signal = new AbortController().signal;
const ref = { release: 'web', namespace: 'apps', signal };

/** A helm whose uninstall runs until `finish()`; every other release command answers at once. */
function world(timeoutMs = 20_000) {
  const clock = new FakeClock();
  let finish: () => void = () => undefined;
  const helm = new FakeHelm()
    .on('version', () => HELM_V3)
    .on('uninstall', () => new Promise<void>((resolve) => (finish = resolve)))
    .on('rollback', () => undefined);
  const notices: StillRunning[] = [];
  let onStillRunning = async (run: StillRunning) => {
    notices.push(run);
  };
  const timed = chain(helm, [slowHelmNotice({ timeoutMs, clock, onStillRunning: (run) => onStillRunning(run) })]);
  return {
    clock,
    helm,
    timed,
    notices,
    finish: () => finish(),
    set onStillRunning(fn: (run: StillRunning) => Promise<void>) {
      onStillRunning = fn;
    },
  };
}

describe('slowHelmNotice', () => {
  it("gives every release command the CR's timeout, unless the call sets its own", async () => {
    const w = world(20_000);
    await w.timed.rollback({ ...ref, revision: 1 });
    await w.timed.rollback({ ...ref, revision: 1, timeoutMs: 5_000 });
    expect(w.helm.callsOf('rollback').map((p) => p.timeoutMs)).toEqual([20_000, 5_000]);
  });

  it('reports a run still going after a quarter of its short timeout, once, naming action, release and timeout', async () => {
    const w = world(20_000);
    const running = w.timed.uninstall(ref);
    w.clock.advance(4_999);
    expect(w.notices).toEqual([]);
    w.clock.advance(1);
    w.clock.advance(10_000);
    expect(w.notices).toEqual([{ action: 'uninstall', release: 'web', elapsedMs: 5_000, timeoutMs: 20_000 }]);
    w.finish();
    await running;
    expect(w.clock.pendingTimers()).toBe(0);
  });

  it('reports nothing for a run that ends before its threshold, and leaves no timer behind', async () => {
    const w = world(300_000);
    const running = w.timed.uninstall(ref);
    w.clock.advance(29_000);
    w.finish();
    await running;
    w.clock.advance(60_000);
    expect(w.notices).toEqual([]);
    expect(w.clock.pendingTimers()).toBe(0);
  });

  it("returns only once the notice's work (the status write) is done", async () => {
    const w = world(20_000);
    let release: () => void = () => undefined;
    w.onStillRunning = () => new Promise<void>((resolve) => (release = resolve));
    let returned = false;
    const running = w.timed.uninstall(ref).then(() => (returned = true));
    w.clock.advance(5_000);
    w.finish();
    await flush();
    expect(returned).toBe(false);
    release();
    await running;
    expect(returned).toBe(true);
  });

  it('never fails a run because its notice failed', async () => {
    const w = world(20_000);
    w.onStillRunning = () => Promise.reject(new Error('API down'));
    const running = w.timed.uninstall(ref);
    w.clock.advance(5_000);
    w.finish();
    await expect(running).resolves.toBeUndefined();
  });

  it('passes version through untimed', async () => {
    const w = world();
    expect(await w.timed.version({ signal })).toEqual(HELM_V3);
  });
});

describe('stillRunningMessage', () => {
  it('says what runs, for how long (whole seconds) and under which timeout', () => {
    expect(stillRunningMessage({ action: 'upgrade', release: 'web', elapsedMs: 30_004, timeoutMs: 120_000 })).toBe(
      'helm upgrade of release web has been running for 30s (timeout 2m); hooks or waits are holding a worker',
    );
    expect(stillRunningMessage({ action: 'install', release: 'db', elapsedMs: 250, timeoutMs: 1_000 })).toBe(
      'helm install of release db has been running for 250ms (timeout 1s); hooks or waits are holding a worker',
    );
  });
});
