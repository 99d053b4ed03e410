import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { flush } from '../../test/support/flush.js';
import { TokenBucket } from './ratelimit.js';

describe('TokenBucket', () => {
  it('lets a burst through at once, then spaces requests at 1/qps', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 2, clock });
    const signal = new AbortController().signal;
    const done: number[] = [];
    for (let i = 0; i < 4; i++) void bucket.take(signal).then(() => done.push(i));
    await flush();
    expect(done).toEqual([0, 1]);
    clock.advance(99);
    await flush();
    expect(done).toEqual([0, 1]);
    clock.advance(1);
    await flush();
    expect(done).toEqual([0, 1, 2]);
    clock.advance(100);
    await flush();
    expect(done).toEqual([0, 1, 2, 3]);
  });

  it('refills while idle, up to the burst', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 3, clock });
    const signal = new AbortController().signal;
    for (let i = 0; i < 3; i++) await bucket.take(signal);
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) await bucket.take(signal);
    expect(clock.pendingTimers()).toBe(0);
    void bucket.take(signal);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('rejects a waiting take with the abort reason', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    const ac = new AbortController();
    await bucket.take(ac.signal);
    const waiting = bucket.take(ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('does not limit with qps Infinity, and rejects nonsense settings', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: Number.POSITIVE_INFINITY, burst: 1, clock });
    for (let i = 0; i < 100; i++) await bucket.take(new AbortController().signal);
    expect(() => new TokenBucket({ qps: 0, burst: 1, clock })).toThrow(/qps/);
    expect(() => new TokenBucket({ qps: 1, burst: 0, clock })).toThrow(/burst/);
  });
});
