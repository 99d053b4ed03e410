import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { leaseTarget } from './leader.js';

const on = { leaderElect: true, leaderElectionId: 'op', leaderElectionNamespace: '' };

describe('leaseTarget', () => {
  it('is undefined when leader election is off', () => {
    expect(leaseTarget({ ...on, leaderElect: false }, { source: 'home' })).toBeUndefined();
  });

  it('prefers --leader-election-namespace, then the in-cluster namespace', () => {
    expect(leaseTarget({ ...on, leaderElectionNamespace: 'x' }, { source: 'in-cluster', namespace: 'pod' })).toEqual({
      namespace: 'x',
      name: 'op',
    });
    expect(leaseTarget(on, { source: 'in-cluster', namespace: 'pod' })).toEqual({ namespace: 'pod', name: 'op' });
  });

  it('requires an id, and a namespace outside a cluster', () => {
    expect(() => leaseTarget({ ...on, leaderElectionId: '' }, { source: 'in-cluster', namespace: 'p' })).toThrow(
      new ConfigError('--leader-election-id is required with --leader-elect'),
    );
    expect(() => leaseTarget(on, { source: 'home', namespace: 'default' })).toThrow(
      /unable to find leader election namespace: not running in-cluster, please specify --leader-election-namespace/,
    );
  });

  it('with --shard-count > 1 names the shard Leases even without --leader-elect', () => {
    const sharded = { ...on, leaderElect: false, shardCount: 3, leaderElectionNamespace: 'x' };
    expect(leaseTarget(sharded, { source: 'home' })).toEqual({ namespace: 'x', name: 'op' });
    expect(() => leaseTarget({ ...sharded, leaderElectionId: '' }, { source: 'home' })).toThrow(
      new ConfigError('--leader-election-id is required with --shard-count > 1'),
    );
    expect(leaseTarget({ ...sharded, shardCount: 1 }, { source: 'home' })).toBeUndefined();
  });
});
