// Controller metrics and readiness: reconcile results by outcome, active workers, workqueue hooks, synced().
import { describe, expect, it } from 'vitest';
import { realClock } from '../core/clock.js';
import { RetryLaterError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import type { ControllerMetrics, Outcome } from './contract.js';
import { Controller, type Source } from './controller.js';

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

describe('when a dependent of a CR changes', () => {
  /** Runs a controller whose reconcile of "ns/a" calls `during` once, then reports each reconcile's number. */
  async function run(opts: { fail: boolean; during: (c: Controller) => void; before?: (c: Controller) => void }) {
    const stop = new AbortController();
    const reconciles: number[] = [];
    let n = 0;
    const c: Controller = new Controller({
      name: 'x-controller',
      concurrency: 1,
      clock: realClock,
      logger: silentLogger,
      reconcile: async () => {
        reconciles.push(++n);
        if (n === 1) opts.during(c);
        // A re-add happens in microtasks once this returns; the next macrotask sees it, or stops the controller.
        setImmediate(() => {
          if (c.queue.len() === 0) stop.abort();
        });
        if (opts.fail && n === 1) throw new RetryLaterError('failing', 60_000);
        return {};
      },
    });
    opts.before?.(c);
    c.enqueue('ns/a');
    await c.run(stop.signal);
    return reconciles;
  }

  it('reconciles the owner once more when the change came during a reconcile that succeeded', async () => {
    expect(await run({ fail: false, during: (c) => expect(c.enqueueDependent('ns/a')).toBe('queued') })).toEqual([
      1, 2,
    ]);
  });

  it('ignores an object created during the reconcile: that reconcile made it (as operator-sdk ignores creations)', async () => {
    expect(await run({ fail: false, during: (c) => expect(c.enqueueDependent('ns/a', 'add')).toBe('own') })).toEqual([
      1,
    ]);
  });

  it('reconciles the owner when an object is created outside its reconciles (someone else made it)', async () => {
    let controller: Controller | undefined;
    await run({ fail: false, during: (c) => (controller = c) });
    expect(controller?.enqueueDependent('ns/a', 'add')).toBe('queued');
  });

  it('leaves the owner to its backoff when the change came during a reconcile that failed', async () => {
    expect(await run({ fail: true, during: (c) => c.enqueueDependent('ns/a') })).toEqual([1]);
  });

  it('does not enqueue an owner whose last reconcile failed, until its spec changes', async () => {
    let controller: Controller | undefined;
    await run({ fail: true, during: (c) => (controller = c) });
    if (!controller) throw new Error('the reconcile did not run');
    expect(controller.enqueueDependent('ns/a')).toBe('backoff');
    controller.resetBackoff('ns/a');
    expect(controller.enqueueDependent('ns/a')).toBe('queued');
  });
});

describe('with an admit gate (sharding)', () => {
  it('neither enqueues nor reconciles a refused key, and drops one refused after it was queued', async () => {
    const stop = new AbortController();
    const admitted = new Set(['ns/mine', 'ns/was-mine']);
    const reconciled: string[] = [];
    const c = new Controller({
      name: 'x-controller',
      concurrency: 1,
      clock: realClock,
      logger: silentLogger,
      admit: (key) => admitted.has(key),
      reconcile: async (key) => {
        reconciled.push(key);
        setImmediate(() => stop.abort());
        return {};
      },
    });
    c.enqueue('ns/theirs');
    expect(c.enqueueDependent('ns/theirs')).toBe('elsewhere');
    expect(c.queue.len()).toBe(0);
    c.enqueue('ns/was-mine');
    c.enqueue('ns/mine');
    admitted.delete('ns/was-mine'); // the shard was lost while the key waited
    await c.run(stop.signal);
    expect(reconciled).toEqual(['ns/mine']);
  });
});

describe('a graceful stop', () => {
  it('takes no new key, lets the running reconcile finish unaborted, then stops the sources and resolves', async () => {
    const cancel = new AbortController();
    const stop = new AbortController();
    const started: string[] = [];
    let release: () => void = () => undefined;
    let seen: AbortSignal | undefined;
    const c = new Controller({
      name: 'x-controller',
      concurrency: 1,
      clock: realClock,
      logger: silentLogger,
      reconcile: async (key, signal) => {
        started.push(key);
        seen = signal;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return {};
      },
    });
    const src = source();
    let sourceStopped = false;
    c.addSource({
      ...src,
      start: async (s) => {
        await src.start(s);
        sourceStopped = true;
      },
    });
    c.enqueue('ns/running');
    c.enqueue('ns/queued');
    const run = c.run(cancel.signal, stop.signal);
    await expect.poll(() => started).toEqual(['ns/running']);
    stop.abort();
    let resolved = false;
    void run.then(() => {
      resolved = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect({ resolved, sourceStopped, aborted: seen?.aborted }).toEqual({
      resolved: false,
      sourceStopped: false,
      aborted: false,
    });
    release();
    await run;
    expect(started).toEqual(['ns/running']); // the queued key was never taken
    expect(sourceStopped).toBe(true);
    expect(cancel.signal.aborted).toBe(false);
  });

  it('aborts the running reconcile when the cancel signal follows the stop (the grace ran out)', async () => {
    const cancel = new AbortController();
    const stop = new AbortController();
    const c = new Controller({
      name: 'x-controller',
      concurrency: 1,
      clock: realClock,
      logger: silentLogger,
      reconcile: (_key, signal) =>
        new Promise((_resolve, reject) => {
          stop.abort();
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    });
    c.addSource(source());
    c.enqueue('ns/slow');
    const run = c.run(cancel.signal, stop.signal);
    setTimeout(() => cancel.abort(new Error('grace over')), 30);
    await run;
    expect(cancel.signal.aborted).toBe(true);
  });
});
