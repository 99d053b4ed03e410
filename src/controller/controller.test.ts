// Controller metrics and readiness: reconcile results by outcome, active workers, workqueue hooks, synced().
import { describe, expect, it } from 'vitest';
import { realClock } from '../core/clock.js';
import { RetryLaterError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import { Controller, type ControllerMetrics, type Source } from './controller.js';
import type { Outcome } from './workers.js';

function recorder() {
  const calls: string[] = [];
  const sink: ControllerMetrics = {
    init: (max, depth) => calls.push(`init ${max} depth=${depth()}`),
    reconciled: (result) => calls.push(`reconciled ${result}`),
    activeWorkers: (d) => calls.push(`active ${d}`),
    queueAdd: () => calls.push('add'),
    queueGet: (key) => calls.push(`get ${key}`),
    queueDone: (key) => calls.push(`done ${key}`),
    queueRetry: () => calls.push('retry'),
  };
  return { calls, sink };
}

function source(): Source & { synced: boolean } {
  return {
    synced: false,
    start: (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    async waitForSync() {},
    hasSynced() {
      return this.synced;
    },
  };
}

describe('Controller', () => {
  it('reports each reconcile by result, its workers and its queue', async () => {
    const { calls, sink } = recorder();
    const outcomes: Record<string, () => Promise<Outcome>> = {
      ok: async () => ({}),
      later: async () => ({ requeueAfterMs: 60_000 }),
      fail: async () => {
        throw new Error('boom');
      },
      retry: async () => {
        throw new RetryLaterError('busy', 60_000);
      },
    };
    const stop = new AbortController();
    let left = Object.keys(outcomes).length;
    const c = new Controller({
      name: 'x-controller',
      concurrency: 1,
      clock: realClock,
      logger: silentLogger,
      metrics: sink,
      reconcile: async (key) => {
        try {
          const run = outcomes[key];
          return run ? await run() : {};
        } finally {
          if (--left === 0) setImmediate(() => stop.abort());
        }
      },
    });
    const src = source();
    c.addSource(src);
    expect(c.synced()).toBe(false);
    src.synced = true;
    expect(c.synced()).toBe(true);
    for (const key of Object.keys(outcomes)) c.enqueue(key);
    await c.run(stop.signal);
    expect(calls[0]).toBe('add');
    expect(calls).toContain('init 1 depth=4');
    expect(calls.filter((x) => x.startsWith('reconciled'))).toEqual([
      'reconciled success',
      'reconciled requeue_after',
      'reconciled error',
      'reconciled error',
    ]);
    expect(calls.filter((x) => x === 'active 1')).toHaveLength(4);
    expect(calls.filter((x) => x === 'active -1')).toHaveLength(4);
    expect(calls.filter((x) => x === 'retry')).toHaveLength(1);
    expect(calls).toContain('get fail');
    expect(calls).toContain('done fail');
  });
});
