import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../../test/fakes/helm.js';
import { ChartRolloutGate } from '../../chart-rollout/gate.js';
import { silentLogger } from '../../core/logger.js';
import type { StoredRelease } from '../../records/types.js';
import type { HelmAppStatus } from '../types.js';
import { CHART_ROLLOUT, chartDriven, throughRollout, withRolloutHold } from './step.js';

const DIGEST = 'sha256:2222222222222222222222222222222222222222';

function stored(config: Record<string, unknown> | undefined): StoredRelease {
  const chart = { name: 'rollout', version: '0.1.0' };
  const release = releaseRecord({ namespace: 'ns', version: 2, chart, ...(config ? { config } : {}) });
  return { release, labels: {} };
}

function step(o: { config?: Record<string, unknown>; values?: Record<string, unknown>; force?: boolean }) {
  const gate = new ChartRolloutGate({ controller: 'web-controller', logger: silentLogger });
  const base = { gate, digest: async () => DIGEST, signal: new AbortController().signal };
  const at = (key: string, values = o.values ?? { a: 1 }) => ({
    ...base,
    key,
    deployed: stored(o.config ?? { a: 1 }),
    values,
    force: o.force ?? false,
  });
  return { gate, at };
}

describe('chartDriven', () => {
  it('is true when the deployed release was made with the same values, whatever their key order', () => {
    const deployed = stored({ b: { y: [1, null], x: 'q' }, a: 1.5 });
    expect(chartDriven({ deployed, values: { a: 1.5, b: { x: 'q', y: [1, null] } }, force: false })).toBe(true);
  });

  it("is false for the CR's own change: other values, a forced upgrade, or no stored config", () => {
    expect(chartDriven({ deployed: stored({ a: 1 }), values: { a: 2 }, force: false })).toBe(false);
    expect(chartDriven({ deployed: stored({ a: 1 }), values: { a: 1 }, force: true })).toBe(false);
    expect(chartDriven({ deployed: stored(undefined), values: {}, force: false })).toBe(false);
    expect(chartDriven({ deployed: undefined, values: {}, force: false })).toBe(false);
  });
});

describe('throughRollout', () => {
  it('holds a chart-driven upgrade behind the canary, but never a spec change', async () => {
    const { at } = step({});
    let release!: () => void;
    const canary = throughRollout(at('ns/a'), () => new Promise<string>((r) => (release = () => r('a'))));
    await Promise.resolve();
    expect(await throughRollout(at('ns/b'), async () => 'b')).toMatchObject({ hold: { reason: 'Waiting' } });
    expect(await throughRollout(at('ns/c', { a: 2 }), async () => 'c')).toEqual({ value: 'c' });
    release();
    expect(await canary).toEqual({ value: 'a' });
    expect(await throughRollout(at('ns/b'), async () => 'b')).toEqual({ value: 'b' });
  });

  it('counts a throw as a failure (halting the rollout) and rethrows it', async () => {
    const { at } = step({});
    const boom = new Error('upgrade failed');
    await expect(throughRollout(at('ns/a'), () => Promise.reject(boom))).rejects.toBe(boom);
    expect(await throughRollout(at('ns/b'), async () => 'b')).toMatchObject({ hold: { reason: 'Halted' } });
  });

  it('counts a throw after the signal aborted as aborted: the next CR becomes the canary', async () => {
    const { at } = step({});
    const abort = new AbortController();
    const run = throughRollout({ ...at('ns/a'), signal: abort.signal }, async () => {
      abort.abort();
      throw new Error('helm stopped');
    });
    await expect(run).rejects.toThrow('helm stopped');
    expect(await throughRollout(at('ns/b'), async () => 'b')).toEqual({ value: 'b' });
  });
});

describe('withRolloutHold', () => {
  const deployedCondition = { type: 'Deployed', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' } as const;
  const held = {
    type: CHART_ROLLOUT,
    status: 'True',
    reason: 'Waiting',
    lastTransitionTime: '2024-01-01T00:00:05Z',
  } as const;
  const shown: HelmAppStatus = { conditions: [deployedCondition, held] };
  const deployed: HelmAppStatus = { conditions: [deployedCondition] };

  it('sets ChartRollout=True with the reason, keeping the time it first held the CR', () => {
    const halted = { reason: 'Halted', message: 'halted' } as const;
    const s = withRolloutHold(deployed, halted, shown, Date.parse('2024-01-01T01:00:00Z'));
    expect(s.conditions.find((c) => c.type === CHART_ROLLOUT)).toEqual({
      type: CHART_ROLLOUT,
      status: 'True',
      reason: 'Halted',
      message: 'halted',
      lastTransitionTime: '2024-01-01T00:00:05Z',
    });
  });

  it('removes it once the CR is not held', () => {
    expect(withRolloutHold(shown, undefined, shown, 0).conditions.map((c) => c.type)).toEqual(['Deployed']);
    expect(withRolloutHold(deployed, undefined, shown, 0)).toBe(deployed);
  });
});
