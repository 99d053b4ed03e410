// Objects a release leaves outside its CR's namespace (cluster-scoped ones, and namespaced ones placed elsewhere),
// remembered per CR, and their deletion when the CR goes away and Helm's release record is already gone (its
// namespace was deleted under it), so that nothing outlives the release. Built by the manager
// (manager/manager.ts, manager/reconciler.ts) as the reconciler's outside-objects port and orphan deleter.
// Deletes only objects that Helm's own annotations attribute to this very release; never keep-policy objects.
import type { Logger } from '../core/logger.js';
import {
  helmUninstallSkips,
  RELEASE_NAME_ANNOTATION as RELEASE_NAME,
  RELEASE_NAMESPACE_ANNOTATION as RELEASE_NAMESPACE,
  splitManifest,
} from '../helm/manifest.js';
import { NotFoundError } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { KubeClient } from '../kube/types.js';
import { parseOwnershipArgs } from './context.js';
import type { PostRenderRequest } from './request.js';

/** The post-renderer's render of one request: the manifest helm applies. */
type Render = (req: PostRenderRequest, signal: AbortSignal) => Promise<string>;

/** A manifest object that may live outside the CR's namespace; `namespace` is absent when the manifest sets none. */
export interface OutsideRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/**
 * The manifest's objects that may outlive the CR's namespace: those placed in another namespace, and those without
 * a namespace (cluster-scoped, or namespaced in the release namespace: told apart by discovery at deletion).
 * Objects helm's uninstall leaves alone (resource-policy) are not listed.
 */
export function outsideObjects(manifest: string, crNamespace: string): OutsideRef[] {
  return splitManifest(manifest)
    .filter((o) => !helmUninstallSkips(o) && o.metadata.namespace !== crNamespace)
    .map((o) => ({
      apiVersion: fresh(o.apiVersion),
      kind: fresh(o.kind),
      name: fresh(o.metadata.name),
      ...(o.metadata.namespace === undefined ? {} : { namespace: fresh(o.metadata.namespace) }),
    }));
}

/**
 * A copy of `s` that is its own string: a parsed value is a slice of the whole manifest and would keep it alive as
 * long as the memo keeps the ref (a manifest per CR, held for nothing).
 */
const fresh = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

/** A deployed revision's outside objects, and which of them helm was about to apply since (by index). */
interface DeployedRefs {
  readonly revision: number;
  readonly refs: readonly OutsideRef[];
  readonly attempted: boolean[];
}

/** One object's identity, to hold each object once. */
const refKey = (r: OutsideRef) => `${r.apiVersion} ${r.kind} ${r.namespace ?? ''} ${r.name}`;

/** outsideObjects, or none when the text is no manifest (a capped status holds a marker, or it is damaged). */
export function outsideObjectsOrNone(manifest: string, crNamespace: string): OutsideRef[] {
  try {
    return outsideObjects(manifest, crNamespace);
  } catch {
    return [];
  }
}

/**
 * Per CR ("ns/name"), the outside objects of its last deployed revision (parsed once per revision) and of every
 * manifest helm was about to apply for it since (told by the post-renderer, so that an install that failed or was
 * cut short by the namespace's deletion is covered too). Shared by every reconciler of the operator. An attempted
 * object the deployed revision also lists is held once, as a mark on the revision's copy (most CRs' attempts are
 * their deployed revisions): what get() answers is the same as if every attempt were kept on its own.
 */
export class OutsideObjectMemo {
  readonly #byKey = new Map<string, DeployedRefs>();
  /** Attempted objects the deployed revision does not list, by refKey. */
  readonly #attempts = new Map<string, Map<string, OutsideRef>>();

  /**
   * The post-renderer's `render`, which also remembers what each manifest it returns puts outside its CR's
   * namespace (rememberAttempt): a deletion that finds the release record gone still removes it.
   */
  remembering(render: Render): Render {
    return async (req, signal) => {
      const out = await render(req, signal);
      const owner = parseOwnershipArgs(req.args).owner;
      this.rememberAttempt(`${owner.namespace}/${owner.name}`, owner.namespace, out);
      return out;
    };
  }

  /** Adds the outside objects of a manifest helm is about to apply for this CR; kept until forget(). */
  rememberAttempt(key: string, crNamespace: string, manifest: string): void {
    const refs = outsideObjectsOrNone(manifest, crNamespace);
    if (refs.length === 0) return;
    const deployed = this.#byKey.get(key);
    const index = new Map(deployed?.refs.map((r, i) => [refKey(r), i]));
    for (const r of refs) {
      const at = index.get(refKey(r));
      if (deployed && at !== undefined) deployed.attempted[at] = true;
      else this.#attemptsOf(key).set(refKey(r), r);
    }
  }

  /** Records the deployed revision's outside objects (parses the manifest only when the revision changed). */
  remember(key: string, crNamespace: string, revision: number, manifest: string): void {
    const old = this.#byKey.get(key);
    if (old?.revision === revision) return;
    const refs = outsideObjectsOrNone(manifest, crNamespace);
    const next: DeployedRefs = { revision, refs, attempted: refs.map(() => false) };
    const index = new Map(refs.map((r, i) => [refKey(r), i]));
    // The old revision's attempted objects that the new one does not list stay attempts.
    old?.refs.forEach((r, i) => {
      if (old.attempted[i] && !index.has(refKey(r))) this.#attemptsOf(key).set(refKey(r), r);
    });
    // Attempts the new revision lists become its marks.
    const attempts = this.#attempts.get(key);
    for (const [k, at] of index) {
      if (attempts?.delete(k)) next.attempted[at] = true;
    }
    if (attempts?.size === 0) this.#attempts.delete(key);
    this.#byKey.set(key, next);
  }

  #attemptsOf(key: string): Map<string, OutsideRef> {
    const seen = this.#attempts.get(key) ?? new Map<string, OutsideRef>();
    this.#attempts.set(key, seen);
    return seen;
  }

  /** The deployed revision's outside objects and those of later attempts, each once; undefined: nothing known. */
  get(key: string): readonly OutsideRef[] | undefined {
    const deployed = this.#byKey.get(key)?.refs;
    const attempted = this.#attempts.get(key);
    if (!attempted) return deployed;
    const all = new Map<string, OutsideRef>();
    for (const r of [...(deployed ?? []), ...attempted.values()]) {
      all.set(refKey(r), r);
    }
    return [...all.values()];
  }

  forget(key: string): void {
    this.#byKey.delete(key);
    this.#attempts.delete(key);
  }
}

export interface DeleteOrphansOptions {
  readonly kube: Pick<KubeClient, 'discover' | 'get' | 'delete'>;
  readonly refs: readonly OutsideRef[];
  readonly release: string;
  /** The CR's (and release's) namespace. */
  readonly namespace: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
}

/**
 * Deletes each listed object that is outside `namespace` and whose Helm annotations name this release
 * (`meta.helm.sh/release-name` and `-namespace`): anything else is left alone, even under the same name. Kinds the
 * server no longer serves and objects already gone are skipped. Returns the objects deleted.
 */
export async function deleteOrphans(o: DeleteOrphansOptions): Promise<OutsideRef[]> {
  const deleted: OutsideRef[] = [];
  for (const ref of o.refs) {
    let res: Awaited<ReturnType<KubeClient['discover']>>;
    try {
      res = await o.kube.discover({ ...parseApiVersion(ref.apiVersion), kind: ref.kind }, { signal: o.signal });
    } catch (err) {
      if (err instanceof NotFoundError) continue;
      throw err;
    }
    const namespace = res.namespaced ? (ref.namespace ?? o.namespace) : '';
    if (res.namespaced && namespace === o.namespace) continue; // the namespace's own deletion takes it
    try {
      const live = await o.kube.get(res, namespace, ref.name, { signal: o.signal });
      const a = live.metadata.annotations ?? {};
      if (a[RELEASE_NAME] !== o.release || a[RELEASE_NAMESPACE] !== o.namespace) continue;
      await o.kube.delete(res, namespace, ref.name, { signal: o.signal, propagationPolicy: 'Background' });
      o.logger.debug({ kind: ref.kind, name: ref.name, ...(namespace ? { namespace } : {}) }, 'Deleted release object');
      deleted.push(namespace ? { ...ref, namespace } : ref);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return deleted;
}
