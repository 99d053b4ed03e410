// Marks one rendered object as the CR's: the chart label, plus a controller ownerReference or (where Kubernetes
// garbage collection cannot follow one) operator-sdk's primary-resource annotations. Pure; applied by the
// post-renderer to every object through transformManifest. Never mutates its input and never does I/O.
import { OperatorError } from '../core/errors.js';
import { isRecord } from '../core/guards.js';
import { resourcePolicyKeep } from '../helm/manifest.js';
import { SHARD_LABEL } from '../leader/shard-label.js';

export const CHART_LABEL = 'helm.sdk.operatorframework.io/chart';
export const PRIMARY_RESOURCE_ANNOTATION = 'operator-sdk/primary-resource';
export const PRIMARY_RESOURCE_TYPE_ANNOTATION = 'operator-sdk/primary-resource-type';

/** The custom resource that owns the release. */
export interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

export interface OwnershipContext {
  owner: Owner;
  /** The chart's name, written as the CHART_LABEL value. */
  chart: string;
  /** Where Helm puts namespaced objects that name no namespace. */
  releaseNamespace: string;
  /** The CR's shard, when sharding is on: written as the SHARD_LABEL value. */
  shard?: string;
}

/** true = namespaced, false = cluster-scoped, undefined = unknown kind */
export type ScopeOf = (apiVersion: string, kind: string) => boolean | undefined;

/** An object cannot be marked: the chart name is not a label value, or the object's kind is unknown or missing. */
export class OwnershipError extends OperatorError {
  readonly code: 'OWNERSHIP_INVALID' | 'OWNERSHIP_UNKNOWN_KIND';
  constructor(code: OwnershipError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

type Mapping = Record<string, unknown>;

/**
 * The object with the chart label and the owner's mark: a controller ownerReference when the object is namespaced,
 * in the owner's namespace (a namespaced object naming none is in `releaseNamespace`), has no `keep` resource
 * policy and has no other controller; the primary-resource annotations (naming the owner, never the object's own
 * type) otherwise. An existing ownerReference to the owner's uid is replaced, other references are kept.
 * Throws an OwnershipError for an invalid chart name, a missing apiVersion or kind, or an unknown kind without a
 * namespace (its scope, and so its namespace, cannot be known).
 */
export function applyOwnership(obj: Mapping, ctx: OwnershipContext, scopeOf: ScopeOf): Mapping {
  if (ctx.chart.length > 63 || !LABEL_VALUE.test(ctx.chart)) {
    throw new OwnershipError(
      'OWNERSHIP_INVALID',
      `chart name ${JSON.stringify(ctx.chart)} cannot be the ${CHART_LABEL} label value: a label value has at most 63 characters, alphanumerics, '-', '_' or '.', and starts and ends with an alphanumeric`,
    );
  }
  const apiVersion = text(obj.apiVersion);
  const kind = text(obj.kind);
  const metadata = mapping(obj.metadata);
  const name = text(metadata.name) ?? text(metadata.generateName) ?? '(unnamed)';
  if (apiVersion === undefined || kind === undefined) {
    throw new OwnershipError('OWNERSHIP_INVALID', `rendered object ${JSON.stringify(name)} has no apiVersion or kind`);
  }
  const namespace = text(metadata.namespace);
  const namespaced = scopeOf(apiVersion, kind) ?? (namespace !== undefined ? true : undefined);
  if (namespaced === undefined) {
    throw new OwnershipError(
      'OWNERSHIP_UNKNOWN_KIND',
      `rendered object ${kind} ${JSON.stringify(name)} (${apiVersion}) names no namespace and the API server does not serve ${apiVersion} ${kind}, so its scope is unknown; install its CRD first or set metadata.namespace`,
    );
  }

  const { owner } = ctx;
  const labels = {
    ...mapping(metadata.labels),
    [CHART_LABEL]: ctx.chart,
    ...(ctx.shard === undefined ? {} : { [SHARD_LABEL]: ctx.shard }),
  };
  const annotations = mapping(metadata.annotations);
  const refs = Array.isArray(metadata.ownerReferences) ? (metadata.ownerReferences as unknown[]) : [];
  const others = refs.filter((ref) => !(isRecord(ref) && ref.uid === owner.uid));
  const otherController = others.some((ref) => isRecord(ref) && ref.controller === true);
  const keep = resourcePolicyKeep({ annotations: stringValues(annotations) });
  const sameNamespace = namespaced && (namespace ?? ctx.releaseNamespace) === owner.namespace;

  const out: Mapping = { ...metadata, labels };
  if (sameNamespace && !keep && !otherController) {
    const mine = {
      apiVersion: owner.apiVersion,
      kind: owner.kind,
      name: owner.name,
      uid: owner.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    const at = refs.findIndex((r) => isRecord(r) && r.uid === owner.uid);
    out.ownerReferences = at < 0 ? [...refs, mine] : [...others.slice(0, at), mine, ...others.slice(at)];
  } else {
    out.annotations = {
      ...annotations,
      [PRIMARY_RESOURCE_ANNOTATION]: `${owner.namespace}/${owner.name}`,
      [PRIMARY_RESOURCE_TYPE_ANNOTATION]: groupKindOf(owner.apiVersion, owner.kind),
    };
  }
  return { ...obj, metadata: out };
}

/** `Kind.group` for an apiVersion and kind, or `Kind` for the core group: the primary-resource-type format. */
export function groupKindOf(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? kind : `${kind}.${apiVersion.slice(0, slash)}`;
}

/** A mapping field as a mapping; anything else (absent, null, a scalar) as an empty one. */
function mapping(value: unknown): Mapping {
  return isRecord(value) ? value : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function stringValues(value: Mapping): Record<string, string> {
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
