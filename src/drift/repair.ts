// Drift repair without helm: re-asserts every object of a release's deployed manifest through the API. A missing
// object is recreated and a drifted one (suspected by compare.ts, confirmed by a server-side apply dry run) gets the
// chart's fields back by server-side apply with a dedicated field manager (fields others added are kept). Called by
// the reconciler on reconciles that need no helm action. Never spawns helm, never deletes, and never puts object
// contents (values) in events, logs or errors.
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { manifestObjects } from '../helm/manifest.js';
import { NotFoundError } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { type DriftDiff, driftOf } from './compare.js';
import { DriftConfirmer } from './confirm.js';
import { withoutNulls } from './zero.js';

/** The field manager of drift-repair applies, visible in each repaired object's managedFields. */
export const DRIFT_FIELD_MANAGER = 'helm-operator-drift';

export interface DriftCorrection {
  readonly action: 'created' | 'patched';
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The drifted field paths (at most a few), for patched objects. */
  readonly paths: readonly string[];
}

export interface DriftFailure {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly message: string;
}

export interface DriftResult {
  readonly checked: number;
  readonly corrected: readonly DriftCorrection[];
  readonly failed: readonly DriftFailure[];
}

export interface DriftRepairOptions {
  readonly kube: Pick<KubeClient, 'get' | 'patch' | 'discover'>;
  /** A cache answer: the object, null when synced and absent, undefined to fall back to a GET. @default GET */
  readonly cached?: (res: ApiResource, namespace: string, name: string) => KubeObject | null | undefined;
  /** Told of every object drift repair wrote, as the server returned it (to drop the watch event it causes). */
  readonly onApplied?: (res: ApiResource, obj: KubeObject) => void;
}

const MAX_PARSED = 512;
/** The API server's refusal to create anything in a namespace that is being deleted. */
const NAMESPACE_TERMINATING = /because it is being terminated/;

export class DriftRepairer {
  readonly #o: DriftRepairOptions;
  /** Desired objects per manifest text (a release's manifest never changes in place), bounded. */
  readonly #parsed = new Map<string, Record<string, unknown>[]>();
  /** Which object versions a dry run found in sync, so that an idle reconcile does not ask again. */
  readonly #confirmer = new DriftConfirmer();

  constructor(options: DriftRepairOptions) {
    this.#o = options;
  }

  /** Checks every object of `manifest` (objects without a namespace belong to `releaseNamespace`). */
  async repair(manifest: string, releaseNamespace: string, signal: AbortSignal, log: Logger): Promise<DriftResult> {
    const corrected: DriftCorrection[] = [];
    const failed: DriftFailure[] = [];
    const desired = this.objectsOf(manifest);
    for (const obj of desired) {
      const kind = String(obj.kind);
      const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
      const name = meta.name ?? '';
      // Where the object lives; cluster-scoped kinds are known only after discovery.
      const where = { namespace: meta.namespace || releaseNamespace };
      try {
        const c = await this.#repairOne(obj, where, signal);
        if (c) corrected.push(c);
      } catch (err) {
        if (signal.aborted) throw err;
        const message = err instanceof Error ? err.message : String(err);
        if (NAMESPACE_TERMINATING.test(message)) {
          // The namespace is being deleted: nothing can be created in it, and the CR goes with it.
          log.debug({ kind, object: `${where.namespace}/${name}` }, 'Drift repair skipped: namespace terminating');
          continue;
        }
        failed.push({ kind, namespace: where.namespace, name, message });
        log.warn(
          { kind, object: where.namespace ? `${where.namespace}/${name}` : name, err: errFields(err) },
          'Drift repair failed',
        );
      }
    }
    return { checked: desired.length, corrected, failed };
  }

  /** Puts one object back when it is missing or drifted; `where.namespace` becomes '' for cluster-scoped kinds. */
  async #repairOne(
    obj: Record<string, unknown>,
    where: { namespace: string },
    signal: AbortSignal,
  ): Promise<DriftCorrection | undefined> {
    const apiVersion = String(obj.apiVersion);
    const kind = String(obj.kind);
    const name = String((obj.metadata as { name?: string }).name ?? '');
    const res = await this.#o.kube.discover({ ...parseApiVersion(apiVersion), kind }, { signal });
    if (!res.namespaced) where.namespace = '';
    const namespace = where.namespace;
    const fromCache = this.#o.cached?.(res, namespace, name);
    let live = fromCache === undefined ? await fetchLive(this.#o, res, namespace, name, signal) : fromCache;
    let diffs = this.#suspected(obj, live);
    if (fromCache !== undefined && (!live || diffs.length > 0)) {
      // A cache may trail the server by a moment (e.g. just after helm wrote): confirm before acting.
      live = await fetchLive(this.#o, res, namespace, name, signal);
      diffs = this.#suspected(obj, live);
    }
    if (live?.metadata.deletionTimestamp) return undefined; // being deleted: its DELETE event comes next
    if (live && diffs.length === 0) return undefined;
    // Without nulls: a rendered null is "no opinion" here as in the comparison, while SSA would clear the field.
    const body = withoutNulls({
      ...obj,
      metadata: { ...(obj.metadata as object), ...(namespace ? { namespace } : {}) },
    });
    const apply = (dryRun: boolean, s: AbortSignal) =>
      this.#o.kube.patch(res, namespace, name, body, 'apply', {
        signal: s,
        fieldManager: DRIFT_FIELD_MANAGER,
        force: true,
        ...(dryRun ? { dryRun } : {}),
      });
    // The subset check cannot know every default and normalisation: the server says what the apply would store.
    if (live && (await this.#confirmer.confirm(obj, live, (s) => apply(true, s), signal)) === 'clean') {
      return undefined;
    }
    const applied = await apply(false, signal);
    this.#o.onApplied?.(res, applied);
    const paths = diffs.map((d) => d.path);
    return { action: live ? 'patched' : 'created', apiVersion, kind, namespace, name, paths };
  }

  /** Where `live` does not carry `desired`, unless a dry run already found this version of it in sync. */
  #suspected(desired: Record<string, unknown>, live: KubeObject | null): DriftDiff[] {
    if (!live) return [];
    const diffs = driftOf(desired, asRecord(live), 5);
    return diffs.length > 0 && this.#confirmer.knownClean(desired, live) ? [] : diffs;
  }

  /** The manifest's objects, parsed once per manifest text (the dependents port reads their kinds from here). */
  objectsOf(manifest: string): readonly Record<string, unknown>[] {
    let objs = this.#parsed.get(manifest);
    if (!objs) {
      objs = manifestObjects(manifest);
      if (this.#parsed.size >= MAX_PARSED) this.#parsed.delete(this.#parsed.keys().next().value as string);
      this.#parsed.set(manifest, objs);
    }
    return objs;
  }
}

async function fetchLive(
  o: DriftRepairOptions,
  res: ApiResource,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<KubeObject | null> {
  try {
    return await o.kube.get(res, namespace, name, { signal });
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

function asRecord(obj: KubeObject): Record<string, unknown> {
  return obj as unknown as Record<string, unknown>;
}

/** One line per correction for the DriftCorrected event: names the object and what was put back. */
export function describeCorrection(c: DriftCorrection): string {
  const where = c.namespace ? `${c.namespace}/${c.name}` : c.name;
  if (c.action === 'created') return `Recreated ${c.kind} ${where}, which had been deleted`;
  return `Reverted ${c.kind} ${where} to the chart's ${c.paths.length > 0 ? c.paths.join(', ') : 'fields'}`;
}
