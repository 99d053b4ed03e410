// The bench's guard (bench/guard.ts): the accepted figures of the nearest machine calibration, and a figure more than
// 25 % worse flagged once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Calibration } from '../../bench/calibrate.ts';
import { median } from '../../bench/calibrate.ts';
import { type Accepted, accept, judge, nearest, readAccepted } from '../../bench/guard.ts';

const dear: Calibration = { nodeCpu: 0.17, helmVersionCpu: 0.16, helmInstallCpu: 0.45 };
const cheap: Calibration = { nodeCpu: 0.05, helmVersionCpu: 0.04, helmInstallCpu: 0.15 };
const accepted = (calibration: Calibration, figures: Record<string, number>): Accepted => ({
  calibration,
  accepted: '2026-12-05',
  figures,
});

describe('the bench guard', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('flags a figure more than 25 % worse than accepted once, and leaves one 24 % worse alone', () => {
    const base = accepted(dear, { 'bulk (ms)': 40_000, 'cpu (s)': 40, 'rss (MiB)': 100 });
    const v = judge(base, {
      'bulk (ms)': { value: 50_400, slack: 500 }, // 26 % worse
      'cpu (s)': { value: 49.6, slack: 0.5 }, // 24 % worse
      'rss (MiB)': { value: 90, slack: 4 }, // better
    });
    expect(v.regressions).toEqual(['bulk (ms): 50400 against 40000 (1.26×)']);
    expect(v.table.match(/worse by more than 25 %/g)).toHaveLength(1);
    expect(v.table).toContain('| cpu (s) | 40 | 49.6 | 1.24× |');
    expect(v.table).toContain('| rss (MiB) | 100 | 90 | 0.90× |');
  });

  it('does not flag a difference within the figure’s noise slack, however large its ratio', () => {
    const v = judge(accepted(dear, { 'idle (%)': 1 }), { 'idle (%)': { value: 1.9, slack: 1 } });
    expect(v.regressions).toEqual([]);
  });

  it('compares with the nearest calibration on helm’s start and install, and with none from another kind of machine', () => {
    const both = [accepted(cheap, { x: 1 }), accepted(dear, { x: 2 })];
    expect(nearest(both, { nodeCpu: 0.2, helmVersionCpu: 0.15, helmInstallCpu: 0.5 })?.figures.x).toBe(2);
    expect(nearest(both, { nodeCpu: 0.1, helmVersionCpu: 0.08, helmInstallCpu: 0.3 })).toBeUndefined();
    expect(judge(undefined, { x: { value: 1, slack: 0 } }).table).toMatch(/BENCH_ACCEPT=1/);
  });

  it('records accepted figures in place of the nearest calibration’s and keeps the other machines’', () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    dirs.push(dir);
    const file = join(dir, 'baselines.json');
    accept(file, accepted(cheap, { x: 1 }));
    accept(file, accepted(dear, { x: 2 }));
    accept(file, accepted({ ...dear, helmInstallCpu: 0.5 }, { x: 3 }));
    expect(readAccepted(file).map((a) => a.figures.x)).toEqual([1, 3]);
  });

  it('keeps the median of the calibration runs', () => {
    expect(median([0.3, 0.1, 0.2])).toBe(0.2);
    expect(median([0.4, 0.1, 0.2, 0.3])).toBeCloseTo(0.25);
  });
});
