// Records core/v1 Events on the objects the operator manages, like client-go's EventRecorder: event() returns at
// once, writes run in the background one at a time, and EventCorrelator aggregates repeats and drops floods.
// Called by the reconciler. Must never throw to or block its caller, and never adds object content to an Event:
// only the caller's reason and message are sent, so the caller must keep Secret values out of `message`.

import { untilAborted } from '../core/abortable.js';
import { type Clock, realClock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { EventCorrelator, type EventTarget } from './correlator.js';

export type EventType = 'Normal' | 'Warning';

/** The object an Event is about; any KubeObject fits. Only these fields are read. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
}

export interface EventRecorder {
  /**
   * Queues an Event about `obj` and returns at once; never throws. `message` is sent as given (cut to 1024
   * characters): never put Secret values or rendered manifests in it.
   */
  event(obj: InvolvedObject, type: EventType, reason: string, message: string): void;
}

export interface EventRecorderStats {
  readonly created: number;
  readonly patched: number;
  /** Events not written: over the per-object rate limit, queue full, object without a name, or after shutdown. */
  readonly dropped: number;
  /** Writes the API server (or the network) refused; logged and not retried. */
  readonly failed: number;
}

export interface BackgroundEventRecorder extends EventRecorder {
  /** Resolves once every write queued so far is done; rejects with `signal.reason` on abort. */
  flush(signal: AbortSignal): Promise<void>;
  stats(): EventRecorderStats;
}

export interface CreateEventRecorderOptions {
  readonly kube: KubeClient;
  /** `source.component` and `reportingComponent`, e.g. `nginx-controller`. */
  readonly component: string;
  /** `reportingInstance` (the pod name, normally). @default 'helm-operator' */
  readonly hostname?: string;
  /** @default realClock */
  readonly clock?: Clock;
  readonly logger: Logger;
  /** Aborting stops recording: queued writes are abandoned and later events dropped. @default never aborts */
  readonly signal?: AbortSignal;
  /** Events one object may emit at once. @default 25 */
  readonly burst?: number;
  /** Per-object refill of the burst. @default 12 (one event every 5 s) */
  readonly refillPerMinute?: number;
  /** Objects and distinct events remembered for rate limiting and aggregation (LRU). @default 4096 */
  readonly maxEntries?: number;
  /** Writes waiting in the background queue before new events are dropped. @default 1000 */
  readonly maxPending?: number;
}

export const eventsResource: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};

/** Longer messages are cut (events.k8s.io/v1 enforces the same limit on `note`). */
export const MAX_EVENT_MESSAGE = 1024;
/** An identical event within this long after the previous one bumps `count` instead of creating an Event. */
export const AGGREGATE_WINDOW_MS = 600_000;
/** Event names are DNS subdomains: the object name is cut so `<name>.<16 hex>` fits in 253 characters. */
const MAX_NAME_PREFIX = 253 - 17;

export function createEventRecorder(options: CreateEventRecorderOptions): BackgroundEventRecorder {
  const { kube, component, hostname = 'helm-operator', clock = realClock, maxPending = 1000 } = options;
  const signal = options.signal ?? new AbortController().signal;
  const logger = options.logger.child({ component: 'events' });
  const correlator = new EventCorrelator({
    windowMs: AGGREGATE_WINDOW_MS,
    ...(options.burst === undefined ? {} : { burst: options.burst }),
    ...(options.refillPerMinute === undefined ? {} : { refillPerMinute: options.refillPerMinute }),
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
  });
  const stats = { created: 0, patched: 0, dropped: 0, failed: 0 };
  let lastNanos = 0n;
  let pending = 0;
  let tail: Promise<void> = Promise.resolve();

  /** `<object name>.<unix nanos as 16 hex>`, like client-go; strictly increasing, so never reused. */
  const newName = (objName: string, now: number): string => {
    let nanos = BigInt(Math.trunc(now)) * 1_000_000n;
    if (nanos <= lastNanos) nanos = lastNanos + 1n;
    lastNanos = nanos;
    const prefix = objName.slice(0, MAX_NAME_PREFIX).replace(/[-.]+$/, '');
    return `${prefix}.${nanos.toString(16).padStart(16, '0')}`;
  };

  const enqueue = (write: () => Promise<void>): boolean => {
    if (pending >= maxPending) return false;
    pending += 1;
    tail = tail.then(write).finally(() => {
      pending -= 1;
    });
    return true;
  };

  const event = (obj: InvolvedObject, type: EventType, reason: string, message: string): void => {
    try {
      const { name, namespace, uid, resourceVersion } = obj.metadata;
      const where = { kind: obj.kind, namespace, name, reason };
      if (signal.aborted || name === undefined || name === '') {
        stats.dropped += 1;
        logger.debug(where, signal.aborted ? 'Event dropped: recorder stopped' : 'Event dropped: object has no name');
        return;
      }
      const text = message.length <= MAX_EVENT_MESSAGE ? message : `${message.slice(0, MAX_EVENT_MESSAGE - 3)}...`;
      const objectKey = JSON.stringify([obj.apiVersion, obj.kind, namespace ?? '', name, uid ?? '']);
      const now = clock.now();
      const decision = correlator.observe({
        objectKey,
        eventKey: JSON.stringify([objectKey, type, reason, text]),
        now,
        target: () => ({ name: newName(name, now), namespace: namespace || 'default' }),
      });
      if (decision.action === 'drop') {
        stats.dropped += 1;
        logger.debug({ ...where, droppedForObject: decision.droppedForObject }, 'Event dropped: rate limit');
        return;
      }
      const { target, count } = decision;
      const body = (): KubeObject => ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: target.name, namespace: target.namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name,
          ...(namespace ? { namespace } : {}),
          ...(uid === undefined ? {} : { uid }),
          ...(resourceVersion === undefined ? {} : { resourceVersion }),
        },
        reason,
        message: text,
        type,
        source: { component },
        reportingComponent: component,
        reportingInstance: hostname,
        firstTimestamp: rfc3339(decision.firstSeen),
        lastTimestamp: rfc3339(now),
        count,
      });
      const write = decision.action === 'create' ? () => create(body()) : () => bump(target, count, now, body);
      if (!enqueue(() => run(write, where))) {
        stats.dropped += 1;
        logger.debug(where, 'Event dropped: write queue full');
      }
    } catch (err) {
      stats.dropped += 1;
      logger.warn({ kind: obj?.kind, reason, err: errFields(err) }, 'Event dropped: could not be built');
    }
  };

  const create = async (body: KubeObject): Promise<void> => {
    await kube.create(eventsResource, body, { signal });
    stats.created += 1;
  };

  /** Merge-patches count and lastTimestamp; recreates the Event (same name) if it expired or was deleted. */
  const bump = async (target: EventTarget, count: number, now: number, body: () => KubeObject): Promise<void> => {
    try {
      const patch = { count, lastTimestamp: rfc3339(now) };
      await kube.patch(eventsResource, target.namespace, target.name, patch, 'merge', { signal });
      stats.patched += 1;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await create(body());
    }
  };

  const run = async (write: () => Promise<void>, where: object): Promise<void> => {
    try {
      if (signal.aborted) throw signal.reason;
      await write();
    } catch (err) {
      stats.failed += 1;
      const fields = { ...where, err: errFields(err) };
      if (signal.aborted) logger.debug(fields, 'Event not written: recorder stopped');
      else logger.warn(fields, 'Event not written');
    }
  };

  const flush = async (flushSignal: AbortSignal): Promise<void> => {
    for (;;) {
      const current = tail;
      await untilAborted(current, flushSignal);
      if (current === tail) return;
    }
  };

  return { event, flush, stats: () => ({ ...stats }) };
}

/** RFC 3339 in whole seconds, as metav1.Time serializes. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
