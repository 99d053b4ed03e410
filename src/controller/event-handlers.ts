// The event handlers that feed a controller: a CR informer's add/update/delete (updates only beyond status; a new
// generation resets the key's backoff; resource_created_at_seconds kept current), and the router that sends a
// dependent's change to its owner's controller. Built by the manager; they never reconcile or call the API.

import type { InformerHandler } from '../cache/informer-contract.js';
import { keyOf } from '../cache/store.js';
import type { Logger } from '../core/logger.js';
import type { KubeObject } from '../kube/types.js';
import type { Controller, DependentVerdict } from './controller.js';
import { changedBeyondStatus } from './predicates.js';

/** The labels of resource_created_at_seconds. */
export interface CrLabels {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** Where the handlers report the CRs they see (OperatorMetrics); implementations must not throw. */
export interface CrMetrics {
  resourceSeen(labels: CrLabels, creationTimestamp: string | undefined): void;
  resourceDeleted(labels: CrLabels): void;
}

export interface CrHandlerOptions {
  readonly gvk: { readonly group: string; readonly version: string; readonly kind: string };
  readonly controller: Pick<Controller, 'enqueue' | 'resetBackoff'>;
  /** The controller's logger. */
  readonly logger: Logger;
  /** @default none */
  readonly metrics?: CrMetrics | undefined;
}

/** The handlers of one CR informer. */
export function crEventHandler(o: CrHandlerOptions): InformerHandler {
  const { controller, logger, metrics } = o;
  const created = (obj: KubeObject) => {
    const labels = { ...o.gvk, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '' };
    const at = obj.metadata.creationTimestamp;
    return { labels, at: typeof at === 'string' ? at : undefined };
  };
  return {
    onAdd: (obj) => {
      logger.debug({ key: keyOf(obj), trigger: 'add' }, 'Custom resource seen: reconcile');
      const c = created(obj);
      metrics?.resourceSeen(c.labels, c.at);
      controller.enqueue(keyOf(obj));
    },
    onUpdate: (old, obj) => {
      const c = created(obj);
      metrics?.resourceSeen(c.labels, c.at);
      // Our own status writes would otherwise re-trigger every CR at once and defeat the failure backoff.
      if (!changedBeyondStatus(old, obj)) return;
      // A new spec deserves a prompt attempt: it resets the key's backoff (operator-sdk keeps it).
      if (old.metadata.generation !== obj.metadata.generation) controller.resetBackoff(keyOf(obj));
      logger.debug({ key: keyOf(obj), trigger: 'update' }, 'Custom resource changed: reconcile');
      controller.enqueue(keyOf(obj));
    },
    onDelete: (obj) => {
      metrics?.resourceDeleted(created(obj).labels);
      controller.enqueue(keyOf(obj));
    },
  };
}

/** A dependent's change: reconcile the CR `key` of the kind `groupKind` (`Kind.group`). */
export interface DependentChange {
  readonly groupKind: string;
  readonly key: string;
  readonly event: 'add' | 'update' | 'delete';
  readonly object: object;
}

const MESSAGES: Readonly<Record<DependentVerdict, string>> = {
  queued: 'Dependent changed: reconcile its owner',
  backoff: 'Dependent changed: owner is in failure backoff',
  elsewhere: "Dependent changed: owner is another shard's",
  own: "Dependent created during its owner's reconcile: its own helm work",
};

/** Routes each dependent change to the controller of its owner's kind (looked up at call time). */
export function dependentRouter(
  byGroupKind: ReadonlyMap<string, Pick<Controller, 'name' | 'enqueueDependent'>>,
  logger: Logger,
): (t: DependentChange) => void {
  return (t) => {
    const controller = byGroupKind.get(t.groupKind);
    if (!controller) return;
    const verdict = controller.enqueueDependent(t.key, t.event);
    logger.debug(
      { controller: controller.name, key: t.key, trigger: { ...t.object, event: t.event } },
      MESSAGES[verdict],
    );
  };
}
