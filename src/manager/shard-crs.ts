// The CR sources of one watch and namespace scope when sharding is on: the informers of the shards held
// (shard-informers.ts) and the labeller of the CRs without a shard (shard-labeller.ts), built from the same informer
// factory. Called by operator.ts; the one place that knows both, so operator.ts gains one line per scope.
import type { Informer } from '../cache/informer.js';
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import type { ShardOwnership } from './shard-gate.js';
import { ShardInformers } from './shard-informers.js';
import { ShardLabeller } from './shard-labeller.js';

export interface ShardedCrsOptions {
  readonly kube: Pick<KubeClient, 'patch'>;
  readonly resource: ApiResource;
  readonly watch: Pick<Watch, 'labelSelector'>;
  readonly shards: ShardOwnership;
  /** A new informer of this scope's CRs that match `labelSelector`. */
  readonly newInformer: (labelSelector: string) => Informer;
  readonly clock: Clock;
  /** The controller's logger. */
  readonly logger: Logger;
}

export function shardedCrs(o: ShardedCrsOptions): { informers: ShardInformers; labeller: ShardLabeller } {
  const { shards, newInformer: informer } = o;
  const labelSelector = o.watch.labelSelector;
  return {
    informers: new ShardInformers({ shards, labelSelector, informer }),
    labeller: new ShardLabeller({
      kube: o.kube,
      resource: o.resource,
      shards,
      labelSelector,
      informer,
      clock: o.clock,
      logger: o.logger.child({ component: 'shard-labeller' }),
    }),
  };
}
