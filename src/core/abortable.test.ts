import { describe, expect, it } from 'vitest';
import { untilAborted, waitFor } from './abortable.js';

describe('untilAborted', () => {
  it('settles as the promise does while the signal stays quiet', async () => {
    await expect(untilAborted(Promise.resolve(1), new AbortController().signal)).resolves.toBe(1);
    const err = new Error('no');
    await expect(untilAborted(Promise.reject(err), new AbortController().signal)).rejects.toBe(err);
  });

  it('rejects with the reason as soon as the signal aborts, or at once when it already has', async () => {
    const stop = new AbortController();
    const pending = untilAborted(new Promise(() => undefined), stop.signal);
    stop.abort(new Error('stopping'));
    await expect(pending).rejects.toThrow('stopping');
    await expect(untilAborted(Promise.resolve(1), stop.signal)).rejects.toThrow('stopping');
  });
});

describe('waitFor', () => {
  it('resolves with what the registered callback is called with', async () => {
    let call: ((v: number) => void) | undefined;
    const waiting = waitFor<number>(new AbortController().signal, (done) => {
      call = done;
      return () => undefined;
    });
    call?.(7);
    await expect(waiting).resolves.toBe(7);
  });

  it('undoes the registration and rejects when the signal aborts first', async () => {
    const waiters = new Set<() => void>();
    const stop = new AbortController();
    const waiting = waitFor(stop.signal, (done) => {
      const w = () => done();
      waiters.add(w);
      return () => waiters.delete(w);
    });
    expect(waiters.size).toBe(1);
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    expect(waiters.size).toBe(0);
  });
});
