// The contract between chaos/run.ts and each scenario, and the table it prints. A scenario gets a fresh local
// control plane and a work folder, does its faults, and returns rows: a figure, its value, and whether it met its
// bar. Pure types and formatting; no scenario logic here.
import type { Plane } from './plane.ts';

export interface Row {
  /** What was measured: "kills survived", "convergence after the last kill". */
  readonly figure: string;
  readonly value: string;
  /** The bar the value had to meet ("20", "0", "≤ 30 s"); empty when it is only reported. */
  readonly bar: string;
  readonly ok: boolean;
}

export interface ScenarioContext {
  readonly root: string;
  readonly plane: Plane;
  /** A folder for this scenario's files (watches.yaml, logs); kept after a failure. */
  readonly work: string;
  /** `make test`'s short version: fewer CRs, kills and cases, same checks. */
  readonly short: boolean;
  /** --cases=a,b: the scenario's cases to run (a scenario with named cases; undefined: all of them). */
  readonly cases?: readonly string[] | undefined;
  /** The helm the operator runs (the plane's helm v3). */
  readonly helm: string;
  readonly log: (line: string) => void;
  readonly signal: AbortSignal;
}

export interface Scenario {
  /** A short id for `--only=` ("kills", "restarts", "network", "leader", "bad-input"). */
  readonly name: string;
  readonly title: string;
  /** Fake nodes on its plane (0: none; pods are not needed by most scenarios), or 'real': one real node. */
  readonly nodes?: number | 'real';
  /** Why this machine cannot run the scenario (it is skipped, the reason printed), or undefined when it can. */
  skipReason?(root: string): Promise<string | undefined>;
  /** Left out of a plain `make chaos`: run only when named in --only= (its own CI step). */
  readonly onlyWhenNamed?: boolean;
  /** Part of the short version that `make test` runs. */
  readonly inShort: boolean;
  run(ctx: ScenarioContext): Promise<Row[]>;
}

export const row = (figure: string, value: string | number, bar: string, ok: boolean): Row => ({
  figure,
  value: String(value),
  bar,
  ok,
});

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The markdown table of every scenario's rows. */
export function formatTable(
  results: readonly { scenario: Scenario; rows: readonly Row[]; error?: string; skipped?: string }[],
): string {
  const lines = ['| scenario | figure | value | bar | ok |', '|---|---|---|---|---|'];
  for (const r of results) {
    if (r.skipped) lines.push(`| ${r.scenario.title} | (skipped) | ${r.skipped.replaceAll('|', '\\|')} | | – |`);
    if (r.error)
      lines.push(`| ${r.scenario.title} | (failed) | ${r.error.replaceAll('|', '\\|').split('\n')[0]} | | ✗ |`);
    for (const x of r.rows) {
      lines.push(`| ${r.scenario.title} | ${x.figure} | ${x.value} | ${x.bar} | ${x.ok ? '✓' : '✗'} |`);
    }
  }
  return lines.join('\n');
}
