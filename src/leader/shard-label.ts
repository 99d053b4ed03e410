// The shard label of a custom resource (`helm.sdk.operatorframework.io/shard`): which shard a CR is in, the rule the
// operator labels an unlabelled CR by (its uid hash, shard-hash.ts) and the label selectors of a shard's watch and
// of the narrow watch that finds CRs to label. Pure; used by the shard gate, the shard informers and the labeller.
import type { KubeObject } from '../kube/types.js';
import { shardOf } from './shard-hash.js';

export const SHARD_LABEL = 'helm.sdk.operatorframework.io/shard';

/** The label's value as a shard number (a decimal integer ≥ 0); undefined when absent or not one. */
export function labelledShard(obj: KubeObject): number | undefined {
  const value = obj.metadata.labels?.[SHARD_LABEL];
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,8})$/.test(value)) return undefined;
  return Number(value);
}

/**
 * The shard label's value that a CR's records and rendered objects carry under `count` shards: its own label when
 * it names one of them; otherwise none (the CR is yet to be labelled, and is not reconciled before it is).
 */
export function shardLabelValue(
  cr: { readonly metadata: { readonly labels?: Readonly<Record<string, string>> | undefined } },
  count: number,
): string | undefined {
  const shard = shardOfCr(cr as KubeObject, count);
  return shard === undefined ? undefined : String(shard);
}

/** The CR's shard under `count` shards: its label when it names one of them; otherwise none (it is to be labelled). */
export function shardOfCr(obj: KubeObject, count: number): number | undefined {
  const shard = labelledShard(obj);
  return shard !== undefined && shard < count ? shard : undefined;
}

/** The shard the operator writes into a CR's label: FNV-1a of its uid modulo `count`; undefined without a uid. */
export function shardToLabel(obj: KubeObject, count: number): number | undefined {
  const uid = obj.metadata.uid;
  return typeof uid === 'string' && uid !== '' ? shardOf(uid, count) : undefined;
}

/** `base` (the watch's own selector, may be empty) and `clause`, as one labelSelector query. */
function joined(base: string | undefined, clause: string): string {
  return base ? `${base},${clause}` : clause;
}

/** The selector of shard `shard`'s CR watch. */
export function shardSelector(base: string | undefined, shard: number): string {
  return joined(base, `${SHARD_LABEL}=${shard}`);
}

/** The selector of the CRs without a shard of `count`: no label, or a value that is not 0 … count − 1. */
export function unshardedSelector(base: string | undefined, count: number): string {
  const shards = Array.from({ length: count }, (_, i) => String(i)).join(',');
  return joined(base, `${SHARD_LABEL} notin (${shards})`);
}

/** The shard count the operator labelled a CR for; absent on a label set by hand (never moved by the operator). */
export const SHARD_COUNT_ANNOTATION = 'helm.sdk.operatorframework.io/shard-count';

/**
 * The merge patch that puts a CR in `shard` of `count`; it fails with a conflict unless `resourceVersion` is current.
 * `finalizers`, when given, is the CR's whole new finalizer list, written in the same request.
 */
export function shardPatch(
  shard: number,
  count: number,
  resourceVersion: string | undefined,
  finalizers?: readonly string[],
): object {
  return {
    metadata: {
      labels: { [SHARD_LABEL]: String(shard) },
      annotations: { [SHARD_COUNT_ANNOTATION]: String(count) },
      ...(finalizers ? { finalizers } : {}),
      resourceVersion,
    },
  };
}

/**
 * Where a CR in a shard of `count` moves: its uid hash modulo `count`, when the operator labelled it for a smaller
 * count; undefined when it stays (a label set by hand, a count as large or larger, or already there).
 */
export function rebalanceTarget(obj: KubeObject, count: number): number | undefined {
  const shard = shardOfCr(obj, count);
  const was = Number(obj.metadata.annotations?.[SHARD_COUNT_ANNOTATION] ?? Number.NaN);
  if (shard === undefined || !Number.isSafeInteger(was) || was >= count) return undefined;
  const target = shardToLabel(obj, count);
  return target === shard ? undefined : target;
}
