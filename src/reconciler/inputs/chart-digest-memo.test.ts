import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../test/fakes/clock.js';
import { ChartDigestMemo } from './chart-digest-memo.js';

const signal = new AbortController().signal;

describe('ChartDigestMemo', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('reads the chart once for a burst of reconciles, and again once the window has passed', async () => {
    let reads = 0;
    const clock = new FakeClock({ nowMs: 1000 });
    const memo = new ChartDigestMemo({
      chartDir: '/chart',
      clock,
      ttlMs: 5000,
      compute: async () => `sha256:${++reads}`,
      check: async () => undefined,
    });
    const burst = await Promise.all([memo.get({ signal }), memo.get({ signal }), memo.get({ signal })]);
    expect(burst).toEqual(['sha256:1', 'sha256:1', 'sha256:1']);
    clock.advance(4999);
    expect(await memo.get({ signal })).toBe('sha256:1');
    clock.advance(1);
    expect(await memo.get({ signal })).toBe('sha256:2');
    expect(reads).toBe(2);
  });

  it('sees a chart file edited while it runs once the window has passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'digest-memo-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'Chart.yaml'), 'name: a\n');
    const clock = new FakeClock({ nowMs: 1000 });
    const memo = new ChartDigestMemo({ chartDir: dir, clock, ttlMs: 5000 });
    const before = await memo.get({ signal });
    writeFileSync(join(dir, 'Chart.yaml'), 'name: b\n');
    expect(await memo.get({ signal })).toBe(before);
    clock.advance(5000);
    expect(await memo.get({ signal })).not.toBe(before);
  });

  it('does not keep a failed read: the next reconcile reads again', async () => {
    let calls = 0;
    const memo = new ChartDigestMemo({
      chartDir: '/chart',
      clock: new FakeClock({ nowMs: 1000 }),
      compute: async () => {
        calls++;
        if (calls === 1) throw new Error('EACCES');
        return 'sha256:ok';
      },
    });
    await expect(memo.get({ signal })).rejects.toThrow('EACCES');
    expect(await memo.get({ signal })).toBe('sha256:ok');
  });

  it('does not reuse a digest once the chart folder is gone, and reads it again once it is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'digest-memo-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'Chart.yaml'), 'name: a\n');
    const memo = new ChartDigestMemo({ chartDir: dir, clock: new FakeClock({ nowMs: 1000 }), ttlMs: 5000 });
    const before = await memo.get({ signal });
    rmSync(dir, { recursive: true });
    await expect(memo.get({ signal })).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(memo.get({ signal })).rejects.toMatchObject({ code: 'ENOENT' });
    mkdirSync(dir);
    writeFileSync(join(dir, 'Chart.yaml'), 'name: a\n');
    expect(await memo.get({ signal })).toBe(before);
  });

  it('rejects with the reason at once when its caller is aborted', async () => {
    const memo = new ChartDigestMemo({
      chartDir: '/chart',
      clock: new FakeClock({ nowMs: 1000 }),
      compute: () => new Promise(() => {}),
    });
    const ac = new AbortController();
    const pending = memo.get({ signal: ac.signal });
    ac.abort(new Error('stopping'));
    await expect(pending).rejects.toThrow('stopping');
  });
});
