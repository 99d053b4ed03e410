// The CR sources of one watch and namespace scope when sharding is on: the informers of the shards held
// (shard-informers.ts), the labeller of the CRs without a shard (shard-labeller.ts) with its poller, and the mover
// of CRs labelled for a smaller count (shard-mover.ts). Called by watch.ts.
import type { Informer } from '../cache/informer.js';
import { ListPoller } from '../cache/poller.js';
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import type { ShardGate, ShardOwnership } from './shard-gate.js';
import { ShardInformers } from './shard-informers.js';
import { ShardLabeller } from './shard-labeller.js';
import { ShardMover } from './shard-mover.js';

/** How often the labeller LISTs the CRs without a shard: a new CR is labelled within about this long. */
const LABELLER_POLL_MS = 500;

export interface ShardedCrsOptions {
  readonly kube: Pick<KubeClient, 'patch' | 'list'>;
  readonly resource: ApiResource;
  readonly watch: Pick<Watch, 'labelSelector'>;
  readonly shards: ShardOwnership;
  /** A new informer of this scope's CRs that match `labelSelector`. */
  readonly newInformer: (labelSelector: string) => Informer;
  /** The scope: '' for all namespaces or a cluster-scoped resource. */
  readonly namespace: string;
  /** The controller's shard gate, which holds a key back while it moves. */
  readonly gate: Pick<ShardGate, 'hold' | 'settle'>;
  /** The controller's enqueue. */
  readonly enqueue: (key: string) => void;
  readonly clock: Clock;
  /** The controller's logger. */
  readonly logger: Logger;
}

export interface ShardedCrs {
  readonly informers: ShardInformers;
  readonly labeller: ShardLabeller;
  readonly mover: ShardMover;
}

export function shardedCrs(o: ShardedCrsOptions): ShardedCrs {
  const { shards, newInformer: informer, kube, resource, clock } = o;
  const labelSelector = o.watch.labelSelector;
  const informers = new ShardInformers({ shards, labelSelector, informer });
  const logger = o.logger.child({ component: 'shard-labeller' });
  const { namespace } = o;
  const source = (selector: string) =>
    new ListPoller({
      client: kube,
      resource,
      namespace,
      labelSelector: selector,
      periodMs: LABELLER_POLL_MS,
      clock,
      logger,
    });
  return {
    informers,
    labeller: new ShardLabeller({ kube, resource, shards, labelSelector, source, clock, logger }),
    mover: new ShardMover({
      kube,
      resource,
      shards,
      gate: o.gate,
      informers,
      enqueue: o.enqueue,
      clock,
      logger: o.logger.child({ component: 'shard-mover' }),
    }),
  };
}
