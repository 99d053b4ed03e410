import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { parseRunFlags } from './flags.js';

const ctx = { env: {}, cpus: 2 };

describe('chart rollout flags', () => {
  it('defaults to two upgrades at once after the canary, halting on the first failure', () => {
    expect(parseRunFlags([], ctx).chartRollout).toEqual({ maxConcurrent: 2, maxFailures: 0 });
  });

  it('takes both limits, 0 concurrent turning the throttle off', () => {
    const o = parseRunFlags(['--chart-rollout-max-concurrent=0', '--chart-rollout-max-failures', '3'], ctx);
    expect(o.chartRollout).toEqual({ maxConcurrent: 0, maxFailures: 3 });
  });

  it.each(['-1', '1.5', 'two', '', '01', '1000000'])('rejects %j, naming the flag', (raw) => {
    expect(() => parseRunFlags([`--chart-rollout-max-concurrent=${raw}`], ctx)).toThrow(ConfigError);
    expect(() => parseRunFlags([`--chart-rollout-max-failures=${raw}`], ctx)).toThrow(/--chart-rollout-max-failures/);
  });
});
