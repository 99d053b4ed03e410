// `--shard-count`, `--shard-index` and the lease timings (`--leader-elect-lease-duration`, `…-renew-deadline`,
// `…-retry-period`, kube-controller-manager's names) of `helm-operator run`, and which shard a replica owns: the flag,
// else the StatefulSet ordinal ending its pod name. Pure; called by flags.ts and run.ts; throws ConfigError naming
// the flag. Never reads process.* itself: the caller passes the pod name.
import { parseDuration } from '../../core/duration.js';
import { ConfigError } from '../../core/errors.js';
import type { LeaseTiming } from '../../leader/election.js';

export interface ShardFlags {
  /** --shard-count: 1 (the default) means no sharding. */
  readonly shardCount: number;
  /** --shard-index; undefined: from the StatefulSet ordinal. */
  readonly shardIndex: number | undefined;
  /** The leader-election (and shard) Lease timings. */
  readonly leaseTiming: LeaseTiming;
}

/** The raw values (undefined: not set) of the flags above. */
export interface RawShardFlags {
  readonly count?: string | undefined;
  readonly index?: string | undefined;
  readonly leaseDuration?: string | undefined;
  readonly renewDeadline?: string | undefined;
  readonly retryPeriod?: string | undefined;
}

export function parseShardFlags(raw: RawShardFlags): ShardFlags {
  const shardCount = integer('shard-count', raw.count ?? '1', 1);
  const shardIndex = raw.index === undefined ? undefined : integer('shard-index', raw.index, 0);
  if (shardIndex !== undefined && shardIndex >= shardCount) {
    throw new ConfigError(`--shard-index=${shardIndex} must be below --shard-count=${shardCount}`);
  }
  const leaseDurationMs = duration('leader-elect-lease-duration', raw.leaseDuration ?? '15s');
  const renewDeadlineMs = duration('leader-elect-renew-deadline', raw.renewDeadline ?? '10s');
  const retryPeriodMs = duration('leader-elect-retry-period', raw.retryPeriod ?? '2s');
  if (leaseDurationMs % 1000 !== 0) {
    throw new ConfigError('--leader-elect-lease-duration must be whole seconds (a Lease stores seconds)');
  }
  if (!(renewDeadlineMs < leaseDurationMs)) {
    throw new ConfigError('--leader-elect-renew-deadline must be below --leader-elect-lease-duration');
  }
  if (!(retryPeriodMs < renewDeadlineMs)) {
    throw new ConfigError('--leader-elect-retry-period must be below --leader-elect-renew-deadline');
  }
  return { shardCount, shardIndex, leaseTiming: { leaseDurationMs, renewDeadlineMs, retryPeriodMs } };
}

/** The StatefulSet ordinal ending a pod name (`my-operator-2` → 2); undefined when there is none. */
export function statefulSetOrdinal(podName: string): number | undefined {
  const m = /-(0|[1-9]\d{0,8})$/.exec(podName);
  return m ? Number(m[1]) : undefined;
}

/**
 * This replica's shard: --shard-index, else the ordinal of `podName` (POD_NAME, else HOSTNAME, else the host name).
 * A ConfigError naming the flags when neither gives one below the count.
 */
export function ownShard(flags: Pick<ShardFlags, 'shardCount' | 'shardIndex'>, podName: string): number {
  if (flags.shardIndex !== undefined) return flags.shardIndex;
  const ordinal = statefulSetOrdinal(podName);
  if (ordinal === undefined) {
    throw new ConfigError(
      `--shard-count=${flags.shardCount} needs --shard-index, or a StatefulSet pod name ending in -<ordinal> ` +
        `(POD_NAME, else HOSTNAME): ${JSON.stringify(podName)} has none`,
    );
  }
  if (ordinal >= flags.shardCount) {
    throw new ConfigError(
      `the StatefulSet ordinal ${ordinal} of ${JSON.stringify(podName)} is not below --shard-count=${flags.shardCount}: ` +
        'give the StatefulSet at most that many replicas, or set --shard-index',
    );
  }
  return ordinal;
}

function integer(flag: string, raw: string, min: number): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min) {
    throw new ConfigError(`--${flag}: ${JSON.stringify(raw)} must be an integer ≥ ${min}`);
  }
  return Number(raw);
}

function duration(flag: string, raw: string): number {
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch (err) {
    throw new ConfigError(`--${flag}: ${(err as Error).message}`, { cause: err });
  }
  if (!(ms > 0)) throw new ConfigError(`--${flag} must be positive`);
  return ms;
}
