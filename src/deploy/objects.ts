// The objects of a rendered deployment (the output of `kubectl kustomize config/default`): parsed from YAML, the
// CustomResourceDefinitions among them, and the order in which to delete the rest. Pure; called only by
// deploy/undeploy.ts. Never touches the cluster.
import { manifestObjects } from '../helm/manifest.js';
import type { GroupVersionKind } from '../kube/types.js';

export interface DeployObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** A custom resource kind the deployment defines: where its CRs live. */
export interface CrdKind extends GroupVersionKind {
  readonly crd: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export function parseObjects(text: string): DeployObject[] {
  return manifestObjects(text).map((o) => {
    const meta = o.metadata as { name: string; namespace?: string };
    return {
      apiVersion: String(o.apiVersion),
      kind: String(o.kind),
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
    };
  });
}

/** The kinds the CRDs in `text` define, each with its storage version (the one the API serves for certain). */
export function crdKinds(text: string): CrdKind[] {
  const out: CrdKind[] = [];
  for (const o of manifestObjects(text)) {
    if (o.kind !== 'CustomResourceDefinition') continue;
    const spec = (o.spec ?? {}) as {
      group?: string;
      scope?: string;
      names?: { kind?: string; plural?: string };
      versions?: { name?: string; served?: boolean; storage?: boolean }[];
    };
    const version = spec.versions?.find((v) => v.storage)?.name ?? spec.versions?.find((v) => v.served)?.name;
    if (!spec.group || !spec.names?.kind || !spec.names.plural || !version) continue;
    out.push({
      crd: String((o.metadata as { name: string }).name),
      group: spec.group,
      version,
      kind: spec.names.kind,
      plural: spec.names.plural,
      namespaced: spec.scope !== 'Cluster',
    });
  }
  return out;
}

/**
 * Deletion order once the CRs are gone: the operator's Deployment first (so nothing reconciles any more), then
 * everything else, CRDs next to last (their CRs are already gone) and Namespaces last.
 */
export function deletionOrder(objects: readonly DeployObject[]): DeployObject[] {
  const rank = (o: DeployObject) =>
    o.kind === 'Deployment' ? 0 : o.kind === 'CustomResourceDefinition' ? 2 : o.kind === 'Namespace' ? 3 : 1;
  return [...objects].sort((a, b) => rank(a) - rank(b));
}
