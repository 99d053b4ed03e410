// The hand-back request of a shard Lease: the replica a shard belongs to writes its identity into an annotation of
// the Lease while another replica holds it; the holder sees it on its next renew and hands the Lease over.
// Pure helpers over a Lease object, used by election.ts only; they never touch the API themselves.
import type { KubeObject } from '../kube/types.js';

export const HANDOVER_ANNOTATION = 'helm.sdk.operatorframework.io/shard-handover-to';

/** Who asked for the Lease, if anyone other than `self`. */
export function handoverRequest(lease: KubeObject, self: string): string | undefined {
  const to = lease.metadata.annotations?.[HANDOVER_ANNOTATION];
  return typeof to === 'string' && to !== '' && to !== self ? to : undefined;
}

/** True when `self` already asked for the Lease. */
export function requestedBy(lease: KubeObject, self: string): boolean {
  return lease.metadata.annotations?.[HANDOVER_ANNOTATION] === self;
}

/** The Lease with `identity`'s request in its annotations. */
export function withRequest(lease: KubeObject, identity: string): KubeObject {
  const annotations = { ...lease.metadata.annotations, [HANDOVER_ANNOTATION]: identity };
  return { ...lease, metadata: { ...lease.metadata, annotations } };
}

/** The Lease without its request when `drop(requester)` says so (handed over, or the requester took it). */
export function withoutRequest(lease: KubeObject, drop: (to: string) => boolean): KubeObject {
  const to = lease.metadata.annotations?.[HANDOVER_ANNOTATION];
  if (typeof to !== 'string' || !drop(to)) return lease;
  const { [HANDOVER_ANNOTATION]: _gone, ...annotations } = lease.metadata.annotations ?? {};
  return { ...lease, metadata: { ...lease.metadata, annotations } };
}
