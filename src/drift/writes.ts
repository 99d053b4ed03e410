// The writes drift repair makes for one object, each as a dry run or for real: a forced server-side apply of the
// rendered object, a JSON merge patch of its drifted fields alone, and a plain create. Called by repair.ts (and the
// confirmer, through it). Pure request building; it never decides whether to write.
import { isRecord } from '../core/guards.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import type { DriftDiff } from './compare.js';
import { withoutNulls } from './zero.js';

/** The field manager of drift-repair writes, visible in each repaired object's managedFields. */
export const DRIFT_FIELD_MANAGER = 'helm-operator-drift';

/** The API calls the writes need. */
export type WriterKube = Pick<KubeClient, 'patch' | 'create'>;

/** The three writes drift repair makes for one object, each as a dry run or for real (create: for real only). */
export interface ObjectWriter {
  readonly diffs: readonly DriftDiff[];
  apply(dryRun: boolean, signal: AbortSignal): Promise<KubeObject>;
  merge(dryRun: boolean, signal: AbortSignal): Promise<KubeObject>;
  create(signal: AbortSignal): Promise<KubeObject>;
}

export function objectWriter(
  o: { readonly kube: WriterKube },
  res: ApiResource,
  obj: Record<string, unknown>,
  namespace: string,
  diffs: readonly DriftDiff[],
): ObjectWriter {
  const name = String((obj.metadata as { name?: string }).name ?? '');
  // Without nulls: a rendered null is "no opinion" here as in the comparison, while SSA would clear the field.
  const body = withoutNulls({
    ...obj,
    metadata: { ...(obj.metadata as object), ...(namespace ? { namespace } : {}) },
  });
  const options = (signal: AbortSignal, dryRun: boolean) => ({
    signal,
    fieldManager: DRIFT_FIELD_MANAGER,
    ...(dryRun ? { dryRun } : {}),
  });
  return {
    diffs,
    apply: (dryRun, signal) =>
      o.kube.patch(res, namespace, name, body, 'apply', { ...options(signal, dryRun), force: true }),
    merge: (dryRun, signal) =>
      o.kube.patch(res, namespace, name, mergeBody(body, diffs), 'merge', options(signal, dryRun)),
    create: (signal) => o.kube.create(res, body as unknown as KubeObject, options(signal, false)),
  };
}

/**
 * A JSON merge patch that puts back the chart's value at each drifted place and nothing else: a drift inside a
 * list replaces that whole list (a merge patch cannot address one element), as the chart rendered it.
 */
export function mergeBody(body: Record<string, unknown>, diffs: readonly DriftDiff[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { trail } of diffs) {
    const cut = trail.findIndex((step) => typeof step === 'number');
    const keys = (cut < 0 ? trail : trail.slice(0, cut)) as readonly string[];
    let from: unknown = body;
    for (const key of keys) from = isRecord(from) ? from[key] : undefined;
    if (from === undefined || keys.length === 0) continue;
    let to = out;
    for (const key of keys.slice(0, -1)) {
      const next = to[key];
      if (!isRecord(next)) to[key] = {};
      to = to[key] as Record<string, unknown>;
    }
    to[keys[keys.length - 1] as string] = structuredClone(from);
  }
  return out;
}
