// The in-process uninstall: what `helm uninstall <release>` does, done with the operator's own API client, so that
// deleting a CR costs no helm process. Lists the release's records, deletes its objects (plan.ts), then its records.
// Built by manager/process.ts; the deletion flow reaches it through the reconciler's `uninstaller` port. Declines what
// helm must do itself (delete hooks, a manifest or kind it cannot read, records newer than those read), and never
// deletes what helm's uninstall would keep.
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import {
  MANAGED_BY_LABEL,
  type ManifestObject,
  RELEASE_NAME_ANNOTATION,
  RELEASE_NAMESPACE_ANNOTATION,
} from '../helm/manifest.js';
import type { Release } from '../helm/types.js';
import { NotFoundError, unlessNotFound } from '../kube/errors.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { SECRETS } from '../records/reader.js';
import { UninstallFailedError } from './errors.js';
import { hasDeleteHooksToRun, planUninstall } from './plan.js';

export interface UninstallerOptions {
  readonly kube: Pick<KubeClient, 'list' | 'discover' | 'get' | 'delete'>;
  /** The helm the operator runs: helm 4 deletes only objects whose labels and annotations name the release. */
  readonly helmMajor: number;
  /**
   * The release's records as a cache shows them (cached-reader's cachedRecords), or undefined: they are LISTed then,
   * as helm does. @default none: always LISTed
   */
  readonly cachedRecords?: (namespace: string, release: string) => readonly KubeObject[] | undefined;
  /** Told what each uninstall did to its release: 'gone', or 'unknown' after a failure (cached-reader's observe). */
  readonly observe?: (namespace: string, release: string, outcome: 'gone' | 'unknown') => void;
}

export interface UninstallRequest {
  /** The release's newest record, as the deletion pass read it. */
  readonly newest: Release;
  /** The release namespace (the CR's). */
  readonly namespace: string;
  readonly disableHooks: boolean;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** Uninstalled; no record left to uninstall (helm's "release: not found"); or left to `helm uninstall`, and why. */
export type UninstallOutcome = 'uninstalled' | 'not-found' | { readonly declined: string };

/** An object of the release as the server addresses it: '' is the namespace of a cluster-scoped one. */
interface Located {
  readonly obj: ManifestObject;
  readonly res: ApiResource;
  readonly namespace: string;
}

export class Uninstaller {
  readonly #o: UninstallerOptions;

  constructor(options: UninstallerOptions) {
    this.#o = options;
  }

  /**
   * True when uninstall() would take `newest`: it has no delete hooks to run. (It may still decline once it reads the
   * manifest, the records and the kinds.) Cheap: the deletion flow asks it of every candidate of a batch.
   */
  takes(newest: Release, disableHooks: boolean): boolean {
    return !hasDeleteHooksToRun(newest, disableHooks);
  }

  async uninstall(r: UninstallRequest): Promise<UninstallOutcome> {
    const { newest, namespace, signal } = r;
    const plan = planUninstall(newest, { disableHooks: r.disableHooks, helmMajor: this.#o.helmMajor });
    if (!plan.inProcess) return { declined: plan.reason };
    const records = await this.#records(newest, namespace, signal);
    if (records.length === 0) return 'not-found';
    const top = newestVersion(records);
    if (top !== newest.version) return { declined: `its records changed since read (revision ${top})` };
    const located = await this.#locate(plan.waves, namespace, signal);
    if (!Array.isArray(located)) return located;
    try {
      const failed: Failure[] = [];
      for (const wave of located) failed.push(...(await this.#deleteWave(wave, newest, r)));
      if (failed.length > 0) throw failure(`failed to delete release ${newest.name}`, failed);
      if (plan.kept.length > 0) r.log.info({ release: newest.name, kept: plan.kept.length }, 'Kept by resource policy');
      await this.#purge(records, newest.name, signal);
    } catch (err) {
      this.#o.observe?.(namespace, newest.name, 'unknown');
      throw err;
    }
    this.#o.observe?.(namespace, newest.name, 'gone');
    return 'uninstalled';
  }

  /**
   * The release's records: the cache's when it shows `newest` as the newest (the watch brings records in order, so
   * none older is missing), else a LIST of their metadata, as helm's uninstall LISTs them.
   */
  async #records(newest: Release, namespace: string, signal: AbortSignal): Promise<readonly KubeObject[]> {
    const cached = this.#o.cachedRecords?.(namespace, newest.name);
    if (cached && cached.length > 0 && newestVersion(cached) === newest.version) return cached;
    const labelSelector = `owner=helm,name=${newest.name}`;
    return (await this.#o.kube.list(SECRETS, { namespace, labelSelector, metadataOnly: true, signal })).items;
  }

  /** Every object's resource and namespace, or a decline when the server does not serve a kind (helm fails then). */
  async #locate(
    waves: readonly (readonly ManifestObject[])[],
    releaseNamespace: string,
    signal: AbortSignal,
  ): Promise<Located[][] | { declined: string }> {
    const resources = new Map<string, ApiResource>();
    const out: Located[][] = [];
    for (const wave of waves) {
      const located: Located[] = [];
      for (const obj of wave) {
        const key = `${obj.apiVersion} ${obj.kind}`;
        let res = resources.get(key);
        if (!res) {
          try {
            res = await this.#o.kube.discover({ ...parseApiVersion(obj.apiVersion), kind: obj.kind }, { signal });
          } catch (err) {
            if (err instanceof NotFoundError) return { declined: `the server does not serve ${key}` };
            throw err;
          }
          resources.set(key, res);
        }
        located.push({ obj, res, namespace: res.namespaced ? (obj.metadata.namespace ?? releaseNamespace) : '' });
      }
      out.push(located);
    }
    return out;
  }

  /** One kind's objects, deleted at once; the deletes that failed (helm goes on with the other kinds, then fails). */
  #deleteWave(wave: readonly Located[], newest: Release, r: UninstallRequest): Promise<Failure[]> {
    return failuresOf(wave, describe, (x) => this.#deleteOne(x, newest, r));
  }

  async #deleteOne(x: Located, newest: Release, r: UninstallRequest): Promise<void> {
    const { signal } = r;
    const name = x.obj.metadata.name;
    if (this.#o.helmMajor >= 4) {
      // helm 4 reads each object first and leaves alone what it cannot read or what another owner holds.
      let live: KubeObject | undefined;
      try {
        live = await unlessNotFound(this.#o.kube.get(x.res, x.namespace, name, { signal }));
      } catch (err) {
        r.log.warn({ kind: x.obj.kind, name, err: errFields(err) }, 'Ownership unverifiable; left in place');
        return;
      }
      if (!live) return;
      if (!ownedBy(live, newest.name, newest.namespace || r.namespace)) {
        r.log.warn({ kind: x.obj.kind, name, release: newest.name }, 'Not owned by the release; left in place');
        return;
      }
    }
    await unlessNotFound(this.#o.kube.delete(x.res, x.namespace, name, { signal, propagationPolicy: 'Background' }));
    r.log.debug(
      { kind: x.obj.kind, name, ...(x.namespace ? { namespace: x.namespace } : {}) },
      'Deleted release object',
    );
  }

  /** The release's records, each deleted (helm's purge); throws, naming each, when one could not be. */
  async #purge(records: readonly KubeObject[], release: string, signal: AbortSignal): Promise<void> {
    const failed = await failuresOf(
      records,
      (s) => `Secret ${s.metadata.name}`,
      (s) =>
        unlessNotFound(this.#o.kube.delete(SECRETS, s.metadata.namespace ?? '', s.metadata.name ?? '', { signal })),
    );
    if (failed.length > 0) throw failure(`uninstall of release ${release} could not purge its records`, failed);
  }
}

/** Runs `run` on every item at once; each that failed, named by `what`, with its error. */
async function failuresOf<T>(
  items: readonly T[],
  what: (item: T) => string,
  run: (item: T) => Promise<unknown>,
): Promise<Failure[]> {
  const results = await Promise.allSettled(items.map(run));
  return items.flatMap((item, i) => {
    const res = results[i];
    return res?.status === 'rejected' ? [{ what: what(item), err: res.reason as unknown }] : [];
  });
}

/** The highest `version` label among the records. */
function newestVersion(records: readonly KubeObject[]): number {
  return Math.max(...records.map((s) => Number(s.metadata.labels?.version)));
}

/** helm 4's checkOwnership: managed by Helm, and annotated with this release's name and namespace. */
function ownedBy(live: KubeObject, release: string, namespace: string): boolean {
  const labels = live.metadata.labels ?? {};
  const annotations = live.metadata.annotations ?? {};
  return (
    labels[MANAGED_BY_LABEL] === 'Helm' &&
    annotations[RELEASE_NAME_ANNOTATION] === release &&
    annotations[RELEASE_NAMESPACE_ANNOTATION] === namespace
  );
}

/** A delete that failed: the object (or record) and the API's error. */
interface Failure {
  readonly what: string;
  readonly err: unknown;
}

/** The error naming every failed delete and what the API server said of it; the first failure is its cause. */
function failure(message: string, failed: readonly Failure[]): UninstallFailedError {
  const what = failed.map((f) => `${f.what}: ${f.err instanceof Error ? f.err.message : String(f.err)}`).join('; ');
  return new UninstallFailedError(`${message}: ${what}`, { cause: failed[0]?.err });
}

function describe(x: Located): string {
  return `${x.obj.kind} ${x.namespace ? `${x.namespace}/` : ''}${x.obj.metadata.name}`;
}
