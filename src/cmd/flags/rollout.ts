// `--chart-rollout-max-concurrent` and `--chart-rollout-max-failures` of `helm-operator run`: how a new chart reaches
// the CRs of a watch (chart-rollout/gate.ts). Pure; called by flags.ts; throws ConfigError naming the
// flag. Never reads process.* itself.
import { ConfigError } from '../../core/errors.js';

export interface ChartRolloutFlags {
  /** Chart-driven upgrades at once per watch after the canary; 0 turns the throttle off. */
  readonly maxConcurrent: number;
  /** Failed chart-driven upgrades tolerated per watch before the rollout halts. */
  readonly maxFailures: number;
}

export const CHART_ROLLOUT_DEFAULTS: ChartRolloutFlags = { maxConcurrent: 2, maxFailures: 0 };

/** The raw values (undefined: not set). */
export function parseChartRolloutFlags(raw: {
  readonly maxConcurrent?: string | undefined;
  readonly maxFailures?: string | undefined;
}): ChartRolloutFlags {
  return {
    maxConcurrent: count('chart-rollout-max-concurrent', raw.maxConcurrent, CHART_ROLLOUT_DEFAULTS.maxConcurrent),
    maxFailures: count('chart-rollout-max-failures', raw.maxFailures, CHART_ROLLOUT_DEFAULTS.maxFailures),
  };
}

function count(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^(0|[1-9]\d{0,5})$/.test(raw)) {
    throw new ConfigError(`--${flag}: ${JSON.stringify(raw)} must be a whole number from 0 to 999999`);
  }
  return Number(raw);
}
