import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { flush } from '../../test/support/flush.js';
import { ConfigError, TerminalError } from '../core/errors.js';
import type { Outcome } from './contract.js';
import { runWorkers } from './workers.js';
import { WorkQueue } from './workqueue.js';

const never = new AbortController().signal;

interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function newQueue() {
  const clock = new FakeClock();
  return { clock, queue: new WorkQueue({ clock }) };
}

describe('runWorkers', () => {
  describe('when concurrency is not an integer ≥ 1', () => {
    it.each([0, -1, 1.5, Number.NaN])('rejects %d with a ConfigError without taking a key', async (concurrency) => {
      const { queue } = newQueue();
      queue.add('a');
      const handle = vi.fn(async (): Promise<Outcome> => ({}));
      await expect(runWorkers({ queue, concurrency, handle, signal: never })).rejects.toBeInstanceOf(ConfigError);
      expect(handle).not.toHaveBeenCalled();
      expect(queue.len()).toBe(1);
    });
  });

  describe('with concurrency 4 and keys re-added while being handled', () => {
    it('handles distinct keys in parallel but never one key twice at once', async () => {
      const { queue } = newQueue();
      const inFlight = new Map<string, number>();
      const maxPerKey = new Map<string, number>();
      let total = 0;
      let maxTotal = 0;
      const gates: Gate[] = [];
      const handled: string[] = [];
      const handle = async (key: string): Promise<Outcome> => {
        const now = (inFlight.get(key) ?? 0) + 1;
        inFlight.set(key, now);
        maxPerKey.set(key, Math.max(maxPerKey.get(key) ?? 0, now));
        maxTotal = Math.max(maxTotal, ++total);
        const g = gate();
        gates.push(g);
        await g.promise;
        inFlight.set(key, now - 1);
        total--;
        handled.push(key);
        return {};
      };
      const run = runWorkers({ queue, concurrency: 4, handle, signal: never });

      for (const key of ['a', 'b', 'c', 'a']) queue.add(key);
      await vi.waitFor(() => expect(total).toBe(3));
      queue.add('a');
      queue.add('b');
      queue.add('d');
      await vi.waitFor(() => expect(total).toBe(4));
      expect(queue.len()).toBe(0);

      while (handled.length < 6) {
        for (const g of gates.splice(0)) g.open();
        await flush();
      }
      queue.shutDown();
      await run;

      expect(Object.fromEntries(maxPerKey)).toEqual({ a: 1, b: 1, c: 1, d: 1 });
      expect(maxTotal).toBe(4);
      expect(handled.filter((k) => k === 'a')).toHaveLength(2);
      expect(handled.filter((k) => k === 'b')).toHaveLength(2);
      expect(handled).toHaveLength(6);
    });
  });

  describe('when handle() throws', () => {
    it('requeues the key rate-limited with a growing delay and reports the error', async () => {
      const { clock, queue } = newQueue();
      const errors: unknown[] = [];
      const handle = vi.fn(async (): Promise<Outcome> => {
        throw new Error('boom');
      });
      const run = runWorkers({ queue, concurrency: 1, handle, signal: never, onError: (_k, err) => errors.push(err) });

      queue.add('a');
      for (const [attempt, delay] of [5, 10, 20].entries()) {
        await vi.waitFor(() => expect(errors).toHaveLength(attempt + 1));
        expect(clock.pendingTimers()).toBe(1);
        expect(queue.numRequeues('a')).toBe(attempt + 1);
        clock.advance(delay - 1);
        await flush();
        expect(handle).toHaveBeenCalledTimes(attempt + 1);
        clock.advance(1);
        await vi.waitFor(() => expect(handle).toHaveBeenCalledTimes(attempt + 2));
      }
      expect(errors[0]).toEqual(new Error('boom'));

      queue.shutDown();
      await run;
    });

    it('forgets the failures once the key succeeds', async () => {
      const { clock, queue } = newQueue();
      let calls = 0;
      const handle = async (): Promise<Outcome> => {
        calls++;
        if (calls === 1) throw new Error('first time');
        return {};
      };
      const run = runWorkers({ queue, concurrency: 1, handle, signal: never });
      queue.add('a');
      await vi.waitFor(() => expect(queue.numRequeues('a')).toBe(1));
      clock.advance(5);
      await vi.waitFor(() => expect(calls).toBe(2));
      await vi.waitFor(() => expect(queue.numRequeues('a')).toBe(0));
      expect(clock.pendingTimers()).toBe(0);
      queue.shutDown();
      await run;
    });
  });

  describe('when handle() throws a TerminalError', () => {
    it('reports it and does not requeue the key', async () => {
      const { clock, queue } = newQueue();
      const onError = vi.fn();
      const handle = vi.fn(async (): Promise<Outcome> => {
        throw new TerminalError('chart is invalid');
      });
      const run = runWorkers({ queue, concurrency: 2, handle, signal: never, onError });
      queue.add('a');
      await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
      expect(onError).toHaveBeenCalledWith('a', expect.any(TerminalError));
      expect(clock.pendingTimers()).toBe(0);
      expect(queue.numRequeues('a')).toBe(0);
      clock.advance(2_000_000);
      await flush();
      expect(handle).toHaveBeenCalledTimes(1);
      queue.shutDown();
      await run;
    });
  });

  describe('when onError() itself throws', () => {
    it('keeps the worker running', async () => {
      const { clock, queue } = newQueue();
      const handle = vi.fn(async (): Promise<Outcome> => {
        throw new Error('boom');
      });
      const onError = vi.fn(() => {
        throw new Error('reporter broke');
      });
      const run = runWorkers({ queue, concurrency: 1, handle, signal: never, onError });
      queue.add('a');
      await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
      clock.advance(5);
      await vi.waitFor(() => expect(handle).toHaveBeenCalledTimes(2));
      queue.shutDown();
      await run;
    });
  });

  describe('when handle() asks for requeueAfterMs', () => {
    it('handles the key again after that delay, with its backoff forgotten', async () => {
      const { clock, queue } = newQueue();
      const outcomes: (Outcome | Error)[] = [new Error('once'), { requeueAfterMs: 1000 }, {}];
      const handle = vi.fn(async (): Promise<Outcome> => {
        const next = outcomes.shift() ?? {};
        if (next instanceof Error) throw next;
        return next;
      });
      const run = runWorkers({ queue, concurrency: 1, handle, signal: never });
      queue.add('a');
      await vi.waitFor(() => expect(queue.numRequeues('a')).toBe(1));
      clock.advance(5);
      await vi.waitFor(() => expect(queue.numRequeues('a')).toBe(0));
      expect(clock.pendingTimers()).toBe(1);
      clock.advance(999);
      await flush();
      expect(handle).toHaveBeenCalledTimes(2);
      clock.advance(1);
      await vi.waitFor(() => expect(handle).toHaveBeenCalledTimes(3));
      await flush();
      expect(clock.pendingTimers()).toBe(0);
      queue.shutDown();
      await run;
    });
  });

  describe('when the queue shuts down', () => {
    it('resolves only after the keys in flight are finished', async () => {
      const { queue } = newQueue();
      const g = gate();
      const handle = vi.fn(async (): Promise<Outcome> => {
        await g.promise;
        return {};
      });
      let finished = false;
      const run = runWorkers({ queue, concurrency: 3, handle, signal: never }).then(() => {
        finished = true;
      });
      queue.add('a');
      await vi.waitFor(() => expect(handle).toHaveBeenCalledTimes(1));
      queue.shutDown();
      await flush();
      expect(finished).toBe(false);
      g.open();
      await run;
      expect(finished).toBe(true);
    });
  });

  describe('when the signal aborts', () => {
    it('stops taking keys and resolves once the handlers return', async () => {
      const { queue } = newQueue();
      const controller = new AbortController();
      const handle = vi.fn(
        (_key: string, signal: AbortSignal) =>
          new Promise<Outcome>((resolve) => signal.addEventListener('abort', () => resolve({}), { once: true })),
      );
      const run = runWorkers({ queue, concurrency: 2, handle, signal: controller.signal });
      queue.add('a');
      await vi.waitFor(() => expect(handle).toHaveBeenCalledTimes(1));
      controller.abort();
      await run;
      queue.add('b');
      expect(queue.len()).toBe(1);
      expect(handle).toHaveBeenCalledTimes(1);
    });
  });
});
