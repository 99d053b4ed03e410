// A CR's chart values with its values-from annotation: GETs each referenced ConfigMap and Secret in the CR's namespace
// (fresh on every reconcile: the manager's reference watch only triggers reconciles, it caches no data), merges
// references, then spec, then overrides (later wins, key by key), hands helm the strings read from Secrets to hide,
// and says which referenced keys the spec shadows (key paths only). Called by inputs/inputs.ts; reads through the
// reconciler's ReferenceReader port (types.ts). Never logs, keeps or shows anything it read.
import { deepMerge } from '../../config/overrides.js';
import {
  parseValuesFrom,
  REFERENCE_RESOURCES,
  type ReferenceKind,
  VALUES_FROM_ANNOTATION,
  ValuesFromError,
} from '../../config/values-from.js';
import { type FetchedReference, referencedValues } from '../../config/values-from-data.js';
import { type Shadowed, shadowedBySpec } from '../../config/values-from-shadow.js';
import { TerminalError } from '../../core/errors.js';
import type { HelmMiddleware } from '../../helm/middleware.js';
import { redact, secretsOf } from '../../helm/redact.js';
import { ForbiddenError } from '../../kube/errors.js';
import type { BackoffPolicy } from '../classify.js';
import { retryAfterFailure } from '../retry.js';
import type { CustomResource, ReferencedObject, ReferenceReader } from '../types.js';

/** What helm gets: the merged values, and the strings from Secrets that its output must never show. */
export interface ChartInputs {
  readonly values: Record<string, unknown>;
  readonly secrets: readonly string[];
  /** The references whose keys the spec sets too (the spec's values win), with those key paths; [] for none. */
  readonly shadowed: readonly Shadowed[];
}

export interface ChartValuesOptions {
  readonly cr: CustomResource;
  /** The CR's spec, already checked to be an object. */
  readonly spec: Readonly<Record<string, unknown>>;
  /** The watch's overrideValues, parsed. */
  readonly overrides: Readonly<Record<string, unknown>>;
  /** @default none: a CR with references then fails with VALUES_FROM_UNRESOLVED */
  readonly reader?: ReferenceReader | undefined;
  readonly signal: AbortSignal;
}

/** references → spec → overrides. Throws a ValuesFromError (naming the reference) for anything it cannot use. */
export async function chartValues(o: ChartValuesOptions): Promise<ChartInputs> {
  const refs = parseValuesFrom(o.cr.metadata.annotations?.[VALUES_FROM_ANNOTATION]);
  if (refs.length === 0) return { values: deepMerge(o.spec, o.overrides), secrets: [], shadowed: [] };
  const { reader, signal } = o;
  if (reader === undefined) {
    throw new ValuesFromError(`annotation ${VALUES_FROM_ANNOTATION} is not supported here`, 'VALUES_FROM_UNRESOLVED');
  }
  const namespace = o.cr.metadata.namespace ?? '';
  if (namespace === '') {
    const why = 'a cluster-scoped custom resource has no namespace to read ConfigMaps and Secrets from';
    throw new ValuesFromError(`annotation ${VALUES_FROM_ANNOTATION}: ${why}; remove it`, 'VALUES_FROM_INVALID');
  }
  // Each object is read once per reconcile, however many references name it (as Flux does).
  const reads = new Map<string, Promise<ReferencedObject | undefined>>();
  const read = (kind: ReferenceKind, name: string) => {
    const id = `${kind}/${name}`;
    const pending = reads.get(id) ?? readOne(reader, kind, namespace, name, signal);
    reads.set(id, pending);
    return pending;
  };
  const fetched: FetchedReference[] = await Promise.all(
    refs.map(async (ref) => ({ ref, object: await read(ref.kind, ref.name) })),
  );
  const referenced = referencedValues(namespace, fetched);
  return {
    values: deepMerge(deepMerge(referenced.values, o.spec), o.overrides),
    secrets: referenced.secrets,
    shadowed: shadowedBySpec(referenced.layers, o.spec),
  };
}

async function readOne(
  reader: ReferenceReader,
  kind: ReferenceKind,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<ReferencedObject | undefined> {
  try {
    return await reader.get(kind, namespace, name, { signal });
  } catch (err) {
    if (signal.aborted) throw err;
    const what = `values-from: cannot read ${kind} ${namespace}/${name}`;
    const plural = REFERENCE_RESOURCES[kind].plural;
    const message =
      err instanceof ForbiddenError
        ? `${what}: the operator may not get ${plural} in ${namespace}: grant get, list and watch on ${plural} to its ` +
          'ServiceAccount (helm-operator create api --values-from, or generate rbac --values-from, adds them)'
        : `${what}: ${err instanceof Error ? err.message : String(err)}; retrying`;
    throw new ValuesFromError(`${message} (nothing was installed or changed)`, 'VALUES_FROM_UNRESOLVED', {
      cause: err,
    });
  }
}

/**
 * The error a reconcile ends with after a ValuesFromError was recorded as Irreconcilable: a malformed annotation
 * is terminal (editing it reconciles the CR); an unresolved reference is retried after the release backoff, and
 * reconciled at once when the object changes.
 */
export function valuesFromFailure(
  err: ValuesFromError,
  o: { readonly key: string; readonly failures: number; readonly backoff?: BackoffPolicy | undefined },
): Error {
  if (err.code === 'VALUES_FROM_INVALID') {
    return new TerminalError(`${o.key}: malformed ${VALUES_FROM_ANNOTATION} annotation`, { cause: err });
  }
  const backoff = o.backoff ? { backoff: o.backoff } : {};
  return retryAfterFailure({ key: o.key, message: err.message, cause: err, failures: o.failures, ...backoff });
}

/** The middleware that hides `secrets` from the output of every release command (nothing to hide: it passes). */
export function secretsHidden(secrets: readonly string[]): HelmMiddleware {
  return {
    name: 'secrets',
    around(command, params, next) {
      if (command === 'version' || secrets.length === 0) return next(params);
      return next({ ...params, secrets: [...(params.secrets ?? []), ...secrets] });
    },
  };
}

/** `text` (a chart's NOTES, say) with every string from `secrets` replaced by `<redacted>`. */
export function hideSecrets(text: string, secrets: readonly string[]): string {
  return secrets.length === 0 || text === '' ? text : redact(text, secretsOf({}, secrets));
}
