import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeHelm, HELM_V3 } from '../../test/fakes/helm.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import { chain } from '../helm/middleware.js';
import { idleCompaction } from './idle-compaction.js';

const signal = new AbortController().signal;
const release = (name: string) => ({ release: name, namespace: 'apps', signal });

function setup(o: { minCalls?: number; signal?: AbortSignal; heap?: { total: number }; slow?: Promise<void> } = {}) {
  const clock = new FakeClock();
  let gcs = 0;
  const heap = o.heap;
  const helm = new FakeHelm().on('version', () => HELM_V3).on('uninstall', () => o.slow);
  const mw = idleCompaction({
    gc: () => {
      gcs++;
      if (heap) heap.total = 40;
    },
    clock,
    logger: recordingLogger().logger,
    quietMs: 2_000,
    minCalls: o.minCalls ?? 3,
    signal: o.signal ?? signal,
    ...(heap ? { heapTotal: () => heap.total * 1048576, checkMs: 30_000 } : {}),
  });
  return { clock, helm: chain(helm, [mw]), gcs: () => gcs };
}

describe('idleCompaction', () => {
  it('collects once, when no helm call has run for the quiet time after a burst', async () => {
    const s = setup();
    for (const n of ['a', 'b', 'c', 'd']) await s.helm.uninstall(release(n));
    s.clock.advance(1_999);
    expect(s.gcs()).toBe(0);
    s.clock.advance(1);
    expect(s.gcs()).toBe(1);
    s.clock.advance(60_000);
    expect(s.gcs()).toBe(1);
  });

  it('waits while a call runs, and starts the quiet time again after each call', async () => {
    const s = setup();
    for (const n of ['a', 'b', 'c']) await s.helm.uninstall(release(n));
    s.clock.advance(1_500);
    await s.helm.uninstall(release('d'));
    s.clock.advance(1_500);
    expect(s.gcs()).toBe(0);
    s.clock.advance(500);
    expect(s.gcs()).toBe(1);
  });

  it('does not collect after fewer calls than minCalls (a trickle is not a burst)', async () => {
    const s = setup({ minCalls: 3 });
    await s.helm.uninstall(release('a'));
    await s.helm.uninstall(release('b'));
    s.clock.advance(10_000);
    expect(s.gcs()).toBe(0);
    await s.helm.uninstall(release('c'));
    s.clock.advance(2_000);
    expect(s.gcs()).toBe(1);
  });

  it('passes errors through and still counts the call', async () => {
    const s = setup({ minCalls: 1 });
    const failing = chain(new FakeHelm().failNext('uninstall', new Error('boom')), [
      idleCompaction({
        gc: () => undefined,
        clock: s.clock,
        logger: recordingLogger().logger,
        quietMs: 1,
        signal,
      }),
    ]);
    await expect(failing.uninstall(release('a'))).rejects.toThrow('boom');
  });

  it('never collects once its signal aborted', async () => {
    const ac = new AbortController();
    const s = setup({ signal: ac.signal });
    for (const n of ['a', 'b', 'c']) await s.helm.uninstall(release(n));
    ac.abort();
    s.clock.advance(10_000);
    expect(s.gcs()).toBe(0);
  });

  it('between bursts, collects when the heap grew by a quarter (and 8 MiB) since the last collection', async () => {
    const heap = { total: 40 };
    const s = setup({ heap });
    s.clock.advance(30_000);
    expect(s.gcs()).toBe(0);
    heap.total = 49; // +22 %: not yet
    s.clock.advance(30_000);
    expect(s.gcs()).toBe(0);
    heap.total = 50; // +25 %, +10 MiB
    s.clock.advance(30_000);
    expect(s.gcs()).toBe(1);
    s.clock.advance(30_000); // back to 40 after the collection
    expect(s.gcs()).toBe(1);
  });

  it('does not collect between bursts while a helm call runs', async () => {
    const heap = { total: 40 };
    let finish: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const s = setup({ heap, slow });
    heap.total = 100;
    const call = s.helm.uninstall(release('a'));
    await Promise.resolve();
    s.clock.advance(30_000);
    expect(s.gcs()).toBe(0);
    finish();
    await call;
    s.clock.advance(30_000);
    expect(s.gcs()).toBe(1);
  });
});
