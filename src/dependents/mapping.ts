// Maps a dependent object to the CR that owns it: the controller ownerReference (same namespace), else the
// operator-sdk/primary-resource(-type) annotations that the post-renderer writes on cluster-scoped,
// cross-namespace and keep-policy objects. Pure; called by the dependent watcher for every event.
import type { KubeObject } from '../kube/types.js';
import { groupKindOf, PRIMARY_RESOURCE_ANNOTATION, PRIMARY_RESOURCE_TYPE_ANNOTATION } from '../ownership/rules.js';

export interface OwnerKey {
  /** `Kind.group` of the owning CR (`Kind` alone for the core group). */
  readonly groupKind: string;
  /** The owning CR's "namespace/name" (or "name" when cluster-scoped). */
  readonly key: string;
}

export function ownerOf(obj: KubeObject): OwnerKey | undefined {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  if (ref) {
    const ns = obj.metadata.namespace ?? '';
    return { groupKind: groupKindOf(ref.apiVersion, ref.kind), key: ns ? `${ns}/${ref.name}` : ref.name };
  }
  const primary = obj.metadata.annotations?.[PRIMARY_RESOURCE_ANNOTATION];
  const type = obj.metadata.annotations?.[PRIMARY_RESOURCE_TYPE_ANNOTATION];
  if (!primary || !type) return undefined;
  const key = primary.startsWith('/') ? primary.slice(1) : primary;
  return { groupKind: type.endsWith('.') ? type.slice(0, -1) : type, key };
}
