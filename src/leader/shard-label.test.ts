import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { shardOf } from './shard-hash.js';
import {
  labelledShard,
  rebalanceTarget,
  SHARD_COUNT_ANNOTATION,
  SHARD_LABEL,
  shardOfCr,
  shardSelector,
  shardToLabel,
  unshardedSelector,
} from './shard-label.js';

const cr = (label?: string, uid = 'u-1'): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { name: 'a', uid, ...(label === undefined ? {} : { labels: { [SHARD_LABEL]: label } }) },
});

describe('the shard label', () => {
  it('reads a decimal shard number, and nothing else', () => {
    expect(labelledShard(cr('0'))).toBe(0);
    expect(labelledShard(cr('12'))).toBe(12);
    for (const bad of [undefined, '', '-1', '01', '1.5', 'x', ' 1', '9999999999']) {
      expect(labelledShard(cr(bad)), String(bad)).toBeUndefined();
    }
  });

  it('names a shard of the count only when it is one of them', () => {
    expect(shardOfCr(cr('2'), 3)).toBe(2);
    expect(shardOfCr(cr('3'), 3)).toBeUndefined();
    expect(shardOfCr(cr(), 3)).toBeUndefined();
  });

  it('is written as the uid hash modulo the count', () => {
    expect(shardToLabel(cr(undefined, 'abc'), 4)).toBe(shardOf('abc', 4));
    expect(shardToLabel(cr(undefined, ''), 4)).toBeUndefined();
  });

  it('selects one shard, or the CRs without a shard, beside the watch’s own selector', () => {
    expect(shardSelector(undefined, 1)).toBe(`${SHARD_LABEL}=1`);
    expect(shardSelector('app=x', 1)).toBe(`app=x,${SHARD_LABEL}=1`);
    expect(unshardedSelector(undefined, 3)).toBe(`${SHARD_LABEL} notin (0,1,2)`);
    expect(unshardedSelector('app=x', 2)).toBe(`app=x,${SHARD_LABEL} notin (0,1)`);
  });

  it('moves a CR the operator labelled for a smaller count to its uid hash, and nothing else', () => {
    const uidMoving = Array.from({ length: 50 }, (_, i) => `u-${i}`).find((u) => shardOf(u, 3) !== shardOf(u, 4)) ?? '';
    const labelled = (count: string | undefined, label = String(shardOf(uidMoving, 3))): KubeObject => ({
      ...cr(label, uidMoving),
      metadata: {
        ...cr(label, uidMoving).metadata,
        ...(count === undefined ? {} : { annotations: { [SHARD_COUNT_ANNOTATION]: count } }),
      },
    });
    expect(rebalanceTarget(labelled('3'), 4)).toBe(shardOf(uidMoving, 4));
    expect(rebalanceTarget(labelled(undefined), 4)).toBeUndefined(); // set by hand
    expect(rebalanceTarget(labelled('4'), 4)).toBeUndefined();
    expect(rebalanceTarget(labelled('5'), 4)).toBeUndefined(); // a larger count's label: left to the retired move
    expect(rebalanceTarget(labelled('3', String(shardOf(uidMoving, 4))), 4)).toBeUndefined(); // already there
    expect(rebalanceTarget(labelled('x'), 4)).toBeUndefined();
  });
});
