// Which informer updates deserve a reconcile. A CR: anything beyond its status (spec, labels, annotations,
// deletion, others' finalizers). A dependent: anything beyond status, resourceVersion and managedFields. Pure;
// called by the CR event handlers (event-handlers.ts) and the dependent watcher on every update event.
import { FINALIZER } from '../finalizers/finalizers.js';
import type { KubeObject } from '../kube/types.js';

/**
 * True when anything but status (and the bookkeeping that comes with it) changed: spec, labels, annotations,
 * deletion, or finalizers other than our own being added (which the reconciler itself just did).
 */
export function changedBeyondStatus(old: KubeObject, obj: KubeObject): boolean {
  const a = old.metadata;
  const b = obj.metadata;
  if (a.generation !== b.generation || a.deletionTimestamp !== b.deletionTimestamp) return true;
  const same = (x: unknown, y: unknown) => JSON.stringify(x ?? null) === JSON.stringify(y ?? null);
  const others = (f: string[] | undefined) => (f ?? []).filter((x) => x !== FINALIZER);
  const ourAdded = !(a.finalizers ?? []).includes(FINALIZER) && (b.finalizers ?? []).includes(FINALIZER);
  const finalizersChanged = ourAdded
    ? !same(others(a.finalizers), others(b.finalizers))
    : !same(a.finalizers, b.finalizers);
  return !same(a.labels, b.labels) || !same(a.annotations, b.annotations) || finalizersChanged;
}

/** True when a dependent changed beyond status, resourceVersion and managedFields (and what moves with them). */
export function changedBeyondBookkeeping(old: KubeObject, obj: KubeObject): boolean {
  return JSON.stringify(essence(old)) !== JSON.stringify(essence(obj));
}

function essence(obj: KubeObject): unknown {
  const { status: _status, metadata, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...meta } = metadata;
  return { ...rest, metadata: meta };
}
