// The bench's guard: the last accepted figures, per machine calibration, kept in bench/baselines.json; each run's
// figures are printed as ratios to the accepted ones of the nearest calibration, and a figure more than 25 % worse is
// flagged (once, in the table and in one summary line). BENCH_ACCEPT=1 records a run's figures as the accepted ones.
// Pure but for reading and writing that one file; called by operator-bench.ts after the report.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Calibration } from './calibrate.ts';

/** A figure where lower is better, with the slack under which a difference is noise whatever its ratio. */
export interface Figure {
  readonly value: number;
  /** Absolute difference never flagged (e.g. 50 ms on a latency, 1 % of a core on idle CPU). */
  readonly slack: number;
}

export interface Accepted {
  readonly calibration: Calibration;
  /** When and at which commit they were accepted (for the reader; not compared). */
  readonly accepted: string;
  readonly figures: Readonly<Record<string, number>>;
}

/** Calibrations whose process-start figures each lie within this factor of each other are one kind of machine. */
const SAME_MACHINE = 1.3;
export const REGRESSION = 0.25;

const near = (a: number, b: number) => a > 0 && b > 0 && Math.max(a / b, b / a) <= SAME_MACHINE;
const distance = (a: Calibration, b: Calibration) =>
  Math.abs(Math.log(a.helmVersionCpu / b.helmVersionCpu)) + Math.abs(Math.log(a.helmInstallCpu / b.helmInstallCpu));

/** The accepted figures of the calibration nearest `cal`, if one is near enough on helm's start and install. */
export function nearest(all: readonly Accepted[], cal: Calibration): Accepted | undefined {
  const same = all.filter(
    (a) =>
      near(a.calibration.helmVersionCpu, cal.helmVersionCpu) && near(a.calibration.helmInstallCpu, cal.helmInstallCpu),
  );
  return same.sort((a, b) => distance(a.calibration, cal) - distance(b.calibration, cal))[0];
}

export interface Verdict {
  /** Markdown: | figure | accepted | now | now ÷ accepted | */
  readonly table: string;
  /** The figures more than REGRESSION worse (beyond their slack), one entry each. */
  readonly regressions: readonly string[];
}

export function judge(accepted: Accepted | undefined, now: Readonly<Record<string, Figure>>): Verdict {
  if (!accepted)
    return {
      table: 'no accepted figures for a machine of this calibration: `BENCH_ACCEPT=1 make bench` records these',
      regressions: [],
    };
  const regressions: string[] = [];
  const fmt = (x: number) => (Number.isFinite(x) ? String(Number(x.toPrecision(3))) : '-');
  const rows = Object.entries(now).map(([name, f]) => {
    const base = accepted.figures[name];
    if (base === undefined || !Number.isFinite(base) || !Number.isFinite(f.value))
      return `| ${name} | - | ${fmt(f.value)} | - |`;
    const ratio = base > 0 ? f.value / base : Number.NaN;
    const worse = f.value > base * (1 + REGRESSION) && f.value - base > f.slack;
    if (worse) regressions.push(`${name}: ${fmt(f.value)} against ${fmt(base)} (${ratio.toFixed(2)}×)`);
    const flag = worse ? ` **worse by more than ${REGRESSION * 100} %**` : '';
    return `| ${name} | ${fmt(base)} | ${fmt(f.value)} | ${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '-'}${flag} |`;
  });
  const table = [
    `accepted ${accepted.accepted} on a machine of calibration ${calibrationText(accepted.calibration)}`,
    '',
    '| figure (lower is better) | accepted | now | now ÷ accepted |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
  return { table, regressions };
}

export function calibrationText(c: Calibration): string {
  const ms = (s: number) => `${Math.round(s * 1000)} ms`;
  return `node -e 0 ${ms(c.nodeCpu)}, helm version ${ms(c.helmVersionCpu)}, helm install ${ms(c.helmInstallCpu)} of CPU`;
}

export function readAccepted(file: string): Accepted[] {
  if (!existsSync(file)) return [];
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { machines?: Accepted[] };
  return parsed.machines ?? [];
}

/** Records `entry`, replacing the accepted figures of the nearest calibration if there is one. */
export function accept(file: string, entry: Accepted): void {
  const all = readAccepted(file);
  const old = nearest(all, entry.calibration);
  const machines = [...all.filter((a) => a !== old), entry];
  writeFileSync(file, `${JSON.stringify({ machines }, null, 2)}\n`);
}
