import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { flush } from '../../test/support/flush.js';
import { WorkQueue } from './workqueue.js';

const never = new AbortController().signal;

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(promise: Promise<T>): { settled: boolean; value: T | undefined } {
  const state: { settled: boolean; value: T | undefined } = { settled: false, value: undefined };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

function newQueue() {
  const clock = new FakeClock();
  return { clock, queue: new WorkQueue({ clock }) };
}

describe('WorkQueue', () => {
  describe('when the same key is added twice before it is taken', () => {
    it('hands it out once', async () => {
      const { queue } = newQueue();
      queue.add('a');
      queue.add('a');
      expect(queue.len()).toBe(1);
      expect(await queue.get(never)).toBe('a');
      expect(queue.len()).toBe(0);
    });
  });

  describe('when several keys are added', () => {
    it('hands them out in the order they were added', async () => {
      const { queue } = newQueue();
      for (const key of ['c', 'a', 'b', 'a']) queue.add(key);
      expect([await queue.get(never), await queue.get(never), await queue.get(never)]).toEqual(['c', 'a', 'b']);
    });
  });

  describe('when getters are waiting on an empty queue', () => {
    it('resolves them in the order they called get()', async () => {
      const { queue } = newQueue();
      const first = queue.get(never);
      const second = queue.get(never);
      queue.add('x');
      queue.add('y');
      expect([await first, await second]).toEqual(['x', 'y']);
    });
  });

  describe('when a key is added while it is being processed', () => {
    it('is handed out again only after done()', async () => {
      const { queue } = newQueue();
      queue.add('a');
      expect(await queue.get(never)).toBe('a');
      queue.add('a');
      queue.add('a');
      expect(queue.len()).toBe(0);
      const next = track(queue.get(never));
      await flush();
      expect(next.settled).toBe(false);
      queue.done('a');
      await flush();
      expect(next).toEqual({ settled: true, value: 'a' });
      expect(queue.len()).toBe(0);
    });
  });

  describe('when done() is called for a key that was not re-added', () => {
    it('does not hand it out again', async () => {
      const { queue } = newQueue();
      queue.add('a');
      await queue.get(never);
      queue.done('a');
      expect(queue.len()).toBe(0);
      queue.done('a');
      queue.done('unknown');
      expect(queue.len()).toBe(0);
    });
  });

  describe('addAfter', () => {
    it('makes the key available only once the delay has passed', () => {
      const { clock, queue } = newQueue();
      queue.addAfter('a', 100);
      clock.advance(99);
      expect(queue.len()).toBe(0);
      clock.advance(1);
      expect(queue.len()).toBe(1);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('adds at once for a zero, negative or NaN delay', () => {
      const { clock, queue } = newQueue();
      queue.addAfter('a', 0);
      queue.addAfter('b', -5);
      queue.addAfter('c', Number.NaN);
      expect(queue.len()).toBe(3);
      expect(clock.pendingTimers()).toBe(0);
    });

    describe('when a second addAfter for the key asks for an earlier time', () => {
      it('fires at the earlier time only', async () => {
        const { clock, queue } = newQueue();
        queue.addAfter('a', 100);
        queue.addAfter('a', 50);
        expect(clock.pendingTimers()).toBe(1);
        clock.advance(50);
        expect(await queue.get(never)).toBe('a');
        queue.done('a');
        clock.advance(100);
        expect(queue.len()).toBe(0);
      });
    });

    describe('when a second addAfter for the key asks for a later time', () => {
      it('keeps the earlier time and drops the later one', async () => {
        const { clock, queue } = newQueue();
        queue.addAfter('a', 50);
        queue.addAfter('a', 100);
        expect(clock.pendingTimers()).toBe(1);
        clock.advance(50);
        expect(await queue.get(never)).toBe('a');
        queue.done('a');
        clock.advance(100);
        expect(queue.len()).toBe(0);
      });
    });

    describe('when add() is called while a delayed add is pending', () => {
      it('is available now and the later timer only de-duplicates', async () => {
        const { clock, queue } = newQueue();
        queue.addAfter('a', 100);
        queue.add('a');
        expect(queue.len()).toBe(1);
        clock.advance(100);
        expect(queue.len()).toBe(1);
        expect(await queue.get(never)).toBe('a');
      });
    });
  });

  describe('addRateLimited', () => {
    it('delays each requeue twice as long as the previous one until forget()', () => {
      const { clock, queue } = newQueue();
      for (const delay of [5, 10, 20]) {
        queue.addRateLimited('a');
        clock.advance(delay - 1);
        expect(queue.len()).toBe(0);
        clock.advance(1);
        expect(queue.len()).toBe(1);
        void queue.get(never);
        queue.done('a');
      }
      expect(queue.numRequeues('a')).toBe(3);
      queue.forget('a');
      expect(queue.numRequeues('a')).toBe(0);
      queue.addRateLimited('a');
      clock.advance(5);
      expect(queue.len()).toBe(1);
    });
  });

  describe('when get() is given an aborted or aborting signal', () => {
    it('resolves undefined and leaves later keys for other getters', async () => {
      const { queue } = newQueue();
      expect(await queue.get(AbortSignal.abort())).toBeUndefined();
      const controller = new AbortController();
      const waiting = queue.get(controller.signal);
      controller.abort();
      expect(await waiting).toBeUndefined();
      queue.add('a');
      expect(queue.len()).toBe(1);
      expect(await queue.get(never)).toBe('a');
    });
  });

  describe('when the queue shuts down', () => {
    it('wakes waiting getters with undefined', async () => {
      const { queue } = newQueue();
      const waiting = [queue.get(never), queue.get(never)];
      queue.shutDown();
      expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
      expect(await queue.get(never)).toBeUndefined();
    });

    it('cancels delayed adds and ignores new adds', () => {
      const { clock, queue } = newQueue();
      queue.addAfter('a', 100);
      queue.addRateLimited('b');
      queue.shutDown();
      expect(clock.pendingTimers()).toBe(0);
      queue.add('c');
      queue.addAfter('d', 10);
      clock.advance(1000);
      expect(queue.len()).toBe(0);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('still hands out the keys queued before, then undefined', async () => {
      const { queue } = newQueue();
      queue.add('a');
      queue.add('b');
      queue.shutDown();
      expect([await queue.get(never), await queue.get(never), await queue.get(never)]).toEqual(['a', 'b', undefined]);
    });

    it('still requeues a key re-added before shutdown when it is done', async () => {
      const { queue } = newQueue();
      queue.add('a');
      await queue.get(never);
      queue.add('a');
      queue.shutDown();
      queue.done('a');
      expect(await queue.get(never)).toBe('a');
    });
  });

  describe('shutDownWithDrain', () => {
    it('resolves only once every key in flight is done', async () => {
      const { queue } = newQueue();
      queue.add('a');
      queue.add('b');
      await queue.get(never);
      await queue.get(never);
      const drained = track(queue.shutDownWithDrain(never));
      queue.done('a');
      await flush();
      expect(drained.settled).toBe(false);
      queue.done('b');
      await flush();
      expect(drained.settled).toBe(true);
    });

    it('resolves at once when nothing is in flight', async () => {
      const { queue } = newQueue();
      await expect(queue.shutDownWithDrain(never)).resolves.toBeUndefined();
    });

    it('rejects with the reason when its signal aborts first', async () => {
      const { queue } = newQueue();
      queue.add('a');
      await queue.get(never);
      const controller = new AbortController();
      const drained = queue.shutDownWithDrain(controller.signal);
      controller.abort(new Error('gave up'));
      await expect(drained).rejects.toThrow('gave up');
    });
  });

  describe('hooks', () => {
    it('reports adds (not duplicates), waits and work durations', async () => {
      const events: string[] = [];
      const durations: number[] = [];
      const queue = new WorkQueue({
        clock: new FakeClock(),
        hooks: {
          onAdd: (key) => events.push(`add ${key}`),
          onGet: (key, waitedMs) => {
            events.push(`get ${key}`);
            durations.push(waitedMs);
          },
          onDone: (key, workMs) => {
            events.push(`done ${key}`);
            durations.push(workMs);
          },
        },
      });
      queue.add('a');
      queue.add('a');
      await queue.get(never);
      queue.done('a');
      expect(events).toEqual(['add a', 'get a', 'done a']);
      expect(durations.every((ms) => ms >= 0)).toBe(true);
    });
  });
});
