// Resolves where the leader-election Lease lives from the run flags and the kube connection, with
// controller-runtime's rules and messages. Pure; called by cmd/run.ts before any controller starts.
// Never reads process.* and never touches the cluster.
import { ConfigError } from '../../core/errors.js';
import type { KubeConnectionInfo } from '../../kube/client.js';
import type { LeaderFlags, RunOptions } from './flags.js';

export interface LeaseTarget {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The Lease to compete for, or undefined when leader election is off; with sharding (--shard-count > 1) the shard
 * Leases' name prefix and namespace, whether or not --leader-elect is set. Throws a ConfigError when incomplete.
 */
export function leaseTarget(
  opts: LeaderFlags & Partial<Pick<RunOptions, 'shardCount'>>,
  conn: Pick<KubeConnectionInfo, 'source' | 'namespace'>,
): LeaseTarget | undefined {
  const sharded = (opts.shardCount ?? 1) > 1;
  if (!opts.leaderElect && !sharded) return undefined;
  if (opts.leaderElectionId === '') {
    throw new ConfigError(`--leader-election-id is required with ${sharded ? '--shard-count > 1' : '--leader-elect'}`);
  }
  const namespace =
    opts.leaderElectionNamespace !== ''
      ? opts.leaderElectionNamespace
      : conn.source === 'in-cluster'
        ? (conn.namespace ?? '')
        : '';
  if (namespace === '') {
    throw new ConfigError(
      'unable to find leader election namespace: not running in-cluster, please specify --leader-election-namespace',
    );
  }
  return { namespace, name: opts.leaderElectionId };
}
