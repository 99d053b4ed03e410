import { describe, expect, it } from 'vitest';
import { AdoptionQueue, type Verdict } from './queue.js';

/** A check the test finishes by hand. */
function gatedCheck() {
  let finish: (v: Verdict) => void = () => {};
  let fail: (err: unknown) => void = () => {};
  let started = 0;
  const check = () => {
    started++;
    return new Promise<Verdict>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { check, finish: (v: Verdict) => finish(v), fail: (e: unknown) => fail(e), started: () => started };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('AdoptionQueue', () => {
  it('runs at most `concurrency` checks at once, in the order they were asked for, and wakes each CR when done', async () => {
    const q = new AdoptionQueue({ concurrency: 2, signal: new AbortController().signal });
    const woken: string[] = [];
    q.onWake((key) => woken.push(key));
    const checks = ['a', 'b', 'c'].map((key) => {
      const c = gatedCheck();
      q.schedule(`apps/${key}`, '1/f', c.check);
      return c;
    });
    expect(q.size).toEqual({ waiting: 1, running: 2 });
    expect(checks.map((c) => c.started())).toEqual([1, 1, 0]);

    checks[1]?.finish({ kind: 'same' });
    await tick();
    expect(woken).toEqual(['apps/b']);
    expect(checks[2]?.started()).toBe(1);
    expect(q.verdict('apps/b', '1/f')).toEqual({ kind: 'same' });
    expect(q.verdict('apps/a', '1/f')).toBeUndefined();
    expect(q.pending('apps/a', '1/f')).toBe(true);
  });

  it('asks for a check of the same revision and inputs once; another revision or fingerprint is another check', async () => {
    const q = new AdoptionQueue({ concurrency: 1, signal: new AbortController().signal });
    const c = gatedCheck();
    q.schedule('apps/web', '1/f', c.check);
    q.schedule('apps/web', '1/f', c.check);
    expect(c.started()).toBe(1);
    c.finish({ kind: 'differs', first: 'Deployment/web' });
    await tick();
    expect(q.verdict('apps/web', '1/f')).toEqual({ kind: 'differs', first: 'Deployment/web' });
    expect(q.verdict('apps/web', '1/g')).toBeUndefined();
    expect(q.verdict('apps/web', '2/f')).toBeUndefined();
  });

  it('hands a failed check out once, so that the retry checks again', async () => {
    const q = new AdoptionQueue({ concurrency: 1, signal: new AbortController().signal });
    const c = gatedCheck();
    q.schedule('apps/web', '1/f', c.check);
    c.fail(new Error('helm: parse error'));
    await tick();
    expect(q.verdict('apps/web', '1/f')).toMatchObject({ kind: 'failed' });
    expect(q.verdict('apps/web', '1/f')).toBeUndefined();
    expect(q.pending('apps/web', '1/f')).toBe(false);
  });

  it('remembers an adoption for its revision only, and forgets a CR that is gone', () => {
    const q = new AdoptionQueue({ signal: new AbortController().signal });
    q.markAdopted('apps/web', '1/f');
    expect(q.adopted('apps/web', '1/f')).toBe(true);
    expect(q.adopted('apps/web', '2/f')).toBe(false);
    q.forget('apps/web');
    expect(q.adopted('apps/web', '1/f')).toBe(false);
  });

  it('starts nothing and wakes nobody once the operator stops', async () => {
    const stop = new AbortController();
    const q = new AdoptionQueue({ concurrency: 1, signal: stop.signal });
    const woken: string[] = [];
    q.onWake((key) => woken.push(key));
    const first = gatedCheck();
    const second = gatedCheck();
    q.schedule('apps/a', '1/f', first.check);
    q.schedule('apps/b', '1/f', second.check);
    stop.abort();
    first.finish({ kind: 'same' });
    await tick();
    expect(woken).toEqual([]);
    expect(second.started()).toBe(0);
  });

  it('refuses a concurrency below one', () => {
    expect(() => new AdoptionQueue({ concurrency: 0, signal: new AbortController().signal })).toThrow(RangeError);
  });
});
