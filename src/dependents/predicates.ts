// Which updates of a dependent matter: anything but status, resourceVersion and managedFields (and the
// generation/timestamps that move with them). Pure; called by the dependent watcher on every update event.
import type { KubeObject } from '../kube/types.js';

export function changedBeyondBookkeeping(old: KubeObject, obj: KubeObject): boolean {
  return JSON.stringify(essence(old)) !== JSON.stringify(essence(obj));
}

function essence(obj: KubeObject): unknown {
  const { status: _status, metadata, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...meta } = metadata;
  return { ...rest, metadata: meta };
}
