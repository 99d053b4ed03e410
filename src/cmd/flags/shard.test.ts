import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { parseRunFlags } from './flags.js';
import { ownShard, parseShardFlags, statefulSetOrdinal } from './shard.js';

const ctx = { env: {}, cpus: 2 };

describe('shard and lease-timing flags', () => {
  it('default to no sharding and controller-runtime timings', () => {
    const o = parseRunFlags([], ctx);
    expect(o.shardCount).toBe(1);
    expect(o.shardIndex).toBeUndefined();
    expect(o.leaseTiming).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  });

  it('parses every flag', () => {
    const o = parseRunFlags(
      [
        '--shard-count=3',
        '--shard-index',
        '2',
        '--leader-elect-lease-duration=6s',
        '--leader-elect-renew-deadline=4s',
        '--leader-elect-retry-period=500ms',
      ],
      ctx,
    );
    expect(o).toMatchObject({
      shardCount: 3,
      shardIndex: 2,
      leaseTiming: { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 500 },
    });
  });

  it.each([
    [{ count: '0' }, '--shard-count: "0" must be an integer ≥ 1'],
    [{ count: 'three' }, '--shard-count: "three" must be an integer ≥ 1'],
    [{ count: '3', index: '-1' }, '--shard-index: "-1" must be an integer ≥ 0'],
    [{ count: '3', index: '3' }, '--shard-index=3 must be below --shard-count=3'],
    [{ index: '1' }, '--shard-index=1 must be below --shard-count=1'],
    [{ leaseDuration: '1500ms' }, '--leader-elect-lease-duration must be whole seconds'],
    [{ leaseDuration: 'soon' }, '--leader-elect-lease-duration:'],
    [{ renewDeadline: '15s' }, '--leader-elect-renew-deadline must be below --leader-elect-lease-duration'],
    [{ retryPeriod: '10s' }, '--leader-elect-retry-period must be below --leader-elect-renew-deadline'],
    [{ retryPeriod: '0s' }, '--leader-elect-retry-period must be positive'],
  ])('rejects %j', (raw, message) => {
    expect(() => parseShardFlags(raw)).toThrow(ConfigError);
    expect(() => parseShardFlags(raw)).toThrow(message);
  });
});

describe('statefulSetOrdinal', () => {
  it.each([
    ['helm-operator-controller-manager-0', 0],
    ['op-12', 12],
    ['op-2-7', 7],
    ['op', undefined],
    ['op-', undefined],
    ['op-01', undefined],
    ['op-x1', undefined],
    ['', undefined],
  ])('%j → %s', (name, ordinal) => {
    expect(statefulSetOrdinal(name)).toBe(ordinal);
  });
});

describe('ownShard', () => {
  it('prefers --shard-index over the pod name', () => {
    expect(ownShard({ shardCount: 3, shardIndex: 1 }, 'op-2')).toBe(1);
  });

  it('takes the StatefulSet ordinal of the pod name', () => {
    expect(ownShard({ shardCount: 3, shardIndex: undefined }, 'op-2')).toBe(2);
  });

  it('names the flags when neither gives a shard', () => {
    expect(() => ownShard({ shardCount: 3, shardIndex: undefined }, 'laptop')).toThrow(
      '--shard-count=3 needs --shard-index, or a StatefulSet pod name ending in -<ordinal> (POD_NAME, else HOSTNAME): "laptop" has none',
    );
  });

  it('refuses an ordinal beyond the shard count', () => {
    expect(() => ownShard({ shardCount: 3, shardIndex: undefined }, 'op-3')).toThrow(
      'the StatefulSet ordinal 3 of "op-3" is not below --shard-count=3',
    );
  });
});
