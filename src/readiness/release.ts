// Folds the health of every object in a release manifest into one Ready condition: True when all are ready, False
// named after the first not-ready object in manifest order, Unknown while some state cannot be read yet. Pure; the
// caller passes a cache lookup. Messages carry only kinds, names, counts and controller reasons, never values.
import type { KubeObject } from '../kube/types.js';
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

/**
 * The Ready condition of a release whose manifest lists `objects`, from the live objects `lookup` returns. Refs may
 * carry extra fields (a resolved ApiResource, say): `lookup` gets each one back as passed.
 */
export function releaseReadiness<R extends ReleaseObjectRef>(
  objects: readonly R[],
  lookup: LiveLookup<R>,
): ReadyCondition {
  if (objects.length === 0) {
    return { status: 'True', reason: ALL_OBJECTS_READY, message: 'the release has no objects' };
  }
  let firstNotReady: { ref: R; health: Health } | undefined;
  let notReady = 0;
  let firstUnknown: R | undefined;
  let unknown = 0;
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
  }
  const total = objects.length;
  if (firstNotReady) {
    const { ref, health } = firstNotReady;
    const more = notReady > 1 ? ` (${notReady} of ${total} objects not ready)` : '';
    return {
      status: 'False',
      reason: reasonFor(ref.kind, health.state === 'failed' ? 'Failed' : 'NotReady'),
      message: `${describeRef(ref)}: ${health.message}${more}`,
    };
  }
  if (firstUnknown) {
    const more = unknown > 1 ? ` (${unknown} of ${total} objects unknown)` : '';
    return {
      status: 'Unknown',
      reason: STATUS_UNKNOWN,
      message: `${describeRef(firstUnknown)}: state not known yet${more}`,
    };
  }
  return { status: 'True', reason: ALL_OBJECTS_READY, message: `${plural(total, 'object')} ready` };
}

export function readyConditionEqual(a: ReadyCondition, b: ReadyCondition): boolean {
  return a.status === b.status && a.reason === b.reason && a.message === b.message;
}
