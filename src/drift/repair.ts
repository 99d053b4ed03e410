// Drift repair without helm: re-asserts every object of a release's deployed manifest through the API. A missing
// object is recreated; a drift that compare.ts suspects (against what the server stores for the rendering, as dry
// runs taught confirm.ts) and a dry run confirms gets the chart's fields back, by server-side apply with a dedicated
// field manager, or by a merge patch of the drifted fields where the server rejects the object for apply. Called by
// the reconciler on reconciles that need no helm action. Never spawns helm, never deletes, never sends a write the
// server refused for the same object version again, and never puts object contents (values) in events or logs.
import { createHash } from 'node:crypto';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { remember } from '../core/lru.js';
import { manifestObjects } from '../helm/manifest.js';
import { unlessNotFound } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { type DriftDiff, driftOf } from './compare.js';
import { DriftConfirmer } from './confirm.js';
import { rejectsObject } from './rejection.js';
import { type ObjectWriter, objectWriter, type WriterKube } from './writes.js';

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
  /** Suspected drifts that no dry run could confirm, left as they are: each reported once per object version. */
  readonly unconfirmed: readonly DriftFailure[];
}

export interface DriftRepairOptions {
  readonly kube: Pick<KubeClient, 'get' | 'discover'> & WriterKube;
  /** A cache answer: the object, null when synced and absent, undefined to fall back to a GET. @default GET */
  readonly cached?: (res: ApiResource, namespace: string, name: string) => KubeObject | null | undefined;
  /** Told of every object drift repair wrote, as the server returned it (to drop the watch event it causes). */
  readonly onApplied?: (res: ApiResource, obj: KubeObject) => void;
}

const MAX_PARSED = 512;
/** Diffs collected per object: enough for a merge patch to cover every drifted field at once. */
const DIFF_LIMIT = 20;
/** Drifted paths named in a DriftCorrected event and log line. */
const SHOWN_PATHS = 5;
/** The API server's refusal to create anything in a namespace that is being deleted. */
const NAMESPACE_TERMINATING = /because it is being terminated/;

/** What one object's check came to: nothing to do, a correction, or a drift that could not be confirmed. */
type ObjectOutcome = DriftCorrection | { readonly unconfirmed: string } | undefined;

export class DriftRepairer {
  readonly #o: DriftRepairOptions;
  /**
   * Desired objects by the sha256 of their manifest (a release's manifest never changes in place), least recently
   * used out first beyond MAX_PARSED, a CR's superseded manifest and a deleted CR's at once. Keyed by
   * digest and stored as fresh strings, so that no copy of the manifest stays alive here: the parser's substrings
   * would each keep the whole text.
   */
  readonly #parsed = new Map<string, Record<string, unknown>[]>();
  /** The digest each CR's release was last parsed at (`namespace/name`): a superseded one is dropped at once. */
  readonly #digestOf = new Map<string, string>();
  /** What dry runs taught about each desired object, and which object versions need no new question. */
  readonly #confirmer = new DriftConfirmer();

  constructor(options: DriftRepairOptions) {
    this.#o = options;
  }

  /** Checks every object of `manifest` (objects without a namespace belong to `releaseNamespace`). */
  async repair(manifest: string, releaseNamespace: string, signal: AbortSignal, log: Logger): Promise<DriftResult> {
    const corrected: DriftCorrection[] = [];
    const failed: DriftFailure[] = [];
    const unconfirmed: DriftFailure[] = [];
    const desired = this.objectsOf(manifest);
    for (const obj of desired) {
      const kind = String(obj.kind);
      const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
      const name = meta.name ?? '';
      // Where the object lives; cluster-scoped kinds are known only after discovery.
      const where = { namespace: meta.namespace || releaseNamespace };
      try {
        const outcome = await this.#repairOne(obj, where, signal);
        if (outcome && 'unconfirmed' in outcome) {
          unconfirmed.push({ kind, namespace: where.namespace, name, message: outcome.unconfirmed });
        } else if (outcome) {
          corrected.push(outcome);
        }
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
    return { checked: desired.length, corrected, failed, unconfirmed };
  }

  /** Puts one object back when it is missing or drifted; `where.namespace` becomes '' for cluster-scoped kinds. */
  async #repairOne(
    obj: Record<string, unknown>,
    where: { namespace: string },
    signal: AbortSignal,
  ): Promise<ObjectOutcome> {
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
    // A write the server refused for this version of the object is not sent again (it would be refused again).
    if (this.#confirmer.refused(obj, live)) return undefined;
    const write = objectWriter(this.#o, res, obj, namespace, diffs);
    const written = await this.#write(obj, live, write, signal);
    if (!written || 'unconfirmed' in written) return written;
    this.#o.onApplied?.(res, written.applied);
    const paths = diffs.slice(0, SHOWN_PATHS).map((d) => d.path);
    return { action: live ? 'patched' : 'created', apiVersion, kind, namespace, name, paths };
  }

  /**
   * Creates a missing object, or writes a drift that a dry run confirmed, by the method the server accepts for the
   * object (server-side apply; a POST or a merge patch where the server rejects the object for apply). A write the
   * server refuses is remembered for this version of the object, and its error thrown once.
   */
  async #write(
    obj: Record<string, unknown>,
    live: KubeObject | null,
    write: ObjectWriter,
    signal: AbortSignal,
  ): Promise<{ applied: KubeObject } | { unconfirmed: string } | undefined> {
    try {
      if (!live) return { applied: await this.#create(obj, write, signal) };
      const dryRuns = {
        apply: (s: AbortSignal) => write.apply(true, s),
        merge: (s: AbortSignal) => write.merge(true, s),
      };
      const verdict = await this.#confirmer.confirm(obj, live, write.diffs, dryRuns, signal);
      if (verdict.kind === 'clean') return undefined;
      if (verdict.kind === 'unknown') {
        const first = this.#confirmer.firstNote(obj, live, 'unconfirmed');
        return first ? { unconfirmed: `${verdict.why}; left as it is until it or its chart changes` } : undefined;
      }
      return { applied: await write[verdict.method](false, signal) };
    } catch (err) {
      if (!signal.aborted && rejectsObject(err)) this.#confirmer.refuse(obj, live);
      throw err;
    }
  }

  /** A missing object back: server-side apply, or a POST where the server rejects the object for apply. */
  async #create(obj: Record<string, unknown>, write: ObjectWriter, signal: AbortSignal): Promise<KubeObject> {
    if (!this.#confirmer.applyRejected(obj)) {
      try {
        return await write.apply(false, signal);
      } catch (err) {
        if (signal.aborted || !rejectsObject(err)) throw err;
        this.#confirmer.rejectApply(obj);
      }
    }
    return write.create(signal);
  }

  /** Where `live` does not carry `desired` as the server stores it, unless a dry run found this version in sync. */
  #suspected(desired: Record<string, unknown>, live: KubeObject | null): DriftDiff[] {
    if (!live) return [];
    const diffs = driftOf(this.#confirmer.storedForm(desired), asRecord(live), DIFF_LIMIT);
    return diffs.length > 0 && this.#confirmer.knownClean(desired, live) ? [] : diffs;
  }

  /** The manifest's objects, parsed once per manifest text (the dependents port reads their kinds from here). */
  objectsOf(manifest: string, owner?: string): readonly Record<string, unknown>[] {
    const digest = createHash('sha256').update(manifest).digest('base64');
    const objs =
      this.#parsed.get(digest) ?? (JSON.parse(JSON.stringify(manifestObjects(manifest))) as Record<string, unknown>[]);
    remember(this.#parsed, digest, objs, MAX_PARSED);
    if (owner !== undefined) {
      const before = this.#digestOf.get(owner);
      if (before !== undefined && before !== digest) this.#parsed.delete(before);
      remember(this.#digestOf, owner, digest, MAX_PARSED);
    }
    return objs;
  }

  /** Forgets what was parsed for a CR (`namespace/name`) that is gone. */
  forget(owner: string): void {
    const digest = this.#digestOf.get(owner);
    if (digest !== undefined) this.#parsed.delete(digest);
    this.#digestOf.delete(owner);
  }
}

async function fetchLive(
  o: DriftRepairOptions,
  res: ApiResource,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<KubeObject | null> {
  return (await unlessNotFound(o.kube.get(res, namespace, name, { signal }))) ?? null;
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
