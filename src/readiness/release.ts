// Folds the health of every object in a release manifest into one Ready condition: True when all are ready, False
// named after the first not-ready object in manifest order, Unknown while some state cannot be read yet. Pure; the
// caller passes a cache lookup; the caller may then name a pod's waiting container as the cause (blamePod). Messages
// carry only kinds, names, counts, controller reasons and pod/container names, never values.
import type { KubeObject } from '../kube/types.js';
import { describeCause, hasPods, isWorkload, type PodCause } from './pods.js';
import { type Health, objectHealth } from './rules.js';

/** One object of the release manifest, as rendered (namespace absent or '' for cluster-scoped objects). */
export interface ReleaseObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

export type ReadyStatus = 'True' | 'False' | 'Unknown';

export interface ReadyCondition {
  readonly status: ReadyStatus;
  readonly reason: string;
  readonly message: string;
}

/**
 * The live object for a ref: the object, `null` when it is known not to exist, `undefined` when its state cannot be
 * known (its kind is not watched, or the cache has not synced yet).
 */
export type LiveLookup<R extends ReleaseObjectRef = ReleaseObjectRef> = (ref: R) => KubeObject | null | undefined;

export const ALL_OBJECTS_READY = 'AllObjectsReady';
export const STATUS_UNKNOWN = 'StatusUnknown';

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export function describeRef(ref: ReleaseObjectRef): string {
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${ref.name}` : `${ref.kind} ${ref.name}`;
}

/** A condition reason for a kind: CamelCase letters and digits only, `Object` when nothing is left. */
function reasonFor(kind: string, suffix: 'NotReady' | 'Failed'): string {
  const word = kind.replace(/[^A-Za-z0-9]/g, '');
  return `${/^[A-Za-z]/.test(word) ? word : 'Object'}${suffix}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A workload of the release (Deployment, StatefulSet, DaemonSet, Job) that is not ready and has pods, as looked up. */
export interface NotReadyWorkload<R extends ReleaseObjectRef = ReleaseObjectRef> {
  readonly ref: R;
  readonly live: KubeObject;
}

/** The Ready condition and what a pod lookup needs to name a cause: the workloads not ready, and the counts. */
export interface ReleaseSurvey<R extends ReleaseObjectRef = ReleaseObjectRef> {
  readonly condition: ReadyCondition;
  /** In manifest order; empty unless the condition is False. */
  readonly workloads: readonly NotReadyWorkload<R>[];
  readonly notReady: number;
  readonly total: number;
}

/**
 * The Ready condition of a release whose manifest lists `objects`, from the live objects `lookup` returns. Refs may
 * carry extra fields (a resolved ApiResource, say): `lookup` gets each one back as passed.
 */
export function releaseReadiness<R extends ReleaseObjectRef>(
  objects: readonly R[],
  lookup: LiveLookup<R>,
): ReadyCondition {
  return surveyRelease(objects, lookup).condition;
}

/** releaseReadiness, with the workloads that are not ready (where blamePod's cause may be found). */
export function surveyRelease<R extends ReleaseObjectRef>(
  objects: readonly R[],
  lookup: LiveLookup<R>,
): ReleaseSurvey<R> {
  const total = objects.length;
  if (total === 0) {
    const condition = { status: 'True', reason: ALL_OBJECTS_READY, message: 'the release has no objects' } as const;
    return { condition, workloads: [], notReady: 0, total };
  }
  let firstNotReady: { ref: R; health: Health } | undefined;
  let notReady = 0;
  let firstUnknown: R | undefined;
  let unknown = 0;
  const workloads: NotReadyWorkload<R>[] = [];
  for (const ref of objects) {
    const live = lookup(ref);
    if (live === undefined) {
      unknown++;
      firstUnknown ??= ref;
      continue;
    }
    const health: Health = live === null ? { state: 'progressing', message: 'not found' } : objectHealth(live);
    if (health.state === 'ready') continue;
    notReady++;
    firstNotReady ??= { ref, health };
    const withPods = live !== null && isWorkload(ref.apiVersion, ref.kind) && hasPods(live);
    if (withPods && health.state !== 'terminating') workloads.push({ ref, live });
  }
  if (firstNotReady) {
    const { ref, health } = firstNotReady;
    const condition: ReadyCondition = {
      status: 'False',
      reason: reasonFor(ref.kind, health.state === 'failed' ? 'Failed' : 'NotReady'),
      message: `${describeRef(ref)}: ${health.message}${moreNotReady(notReady, total)}`,
    };
    return { condition, workloads, notReady, total };
  }
  if (firstUnknown) {
    const more = unknown > 1 ? ` (${unknown} of ${total} objects unknown)` : '';
    const message = `${describeRef(firstUnknown)}: state not known yet${more}`;
    return { condition: { status: 'Unknown', reason: STATUS_UNKNOWN, message }, workloads: [], notReady, total };
  }
  const condition = { status: 'True', reason: ALL_OBJECTS_READY, message: `${plural(total, 'object')} ready` } as const;
  return { condition, workloads: [], notReady, total };
}

function moreNotReady(notReady: number, total: number): string {
  return notReady > 1 ? ` (${notReady} of ${total} objects not ready)` : '';
}

/**
 * Ready=False naming a pod's waiting container as the reason the workload is not ready: reason = the waiting reason
 * (`ImagePullBackOff`), message `Deployment ns/web: pod web-7d9c-x: container nginx: ImagePullBackOff`.
 */
export function blamePod(survey: ReleaseSurvey, workload: ReleaseObjectRef, cause: PodCause): ReadyCondition {
  return {
    status: 'False',
    reason: cause.reason,
    message: `${describeRef(workload)}: ${describeCause(cause)}${moreNotReady(survey.notReady, survey.total)}`,
  };
}

export function readyConditionEqual(a: ReadyCondition, b: ReadyCondition): boolean {
  return a.status === b.status && a.reason === b.reason && a.message === b.message;
}
