// Helm's release records from a metadata-only informer on the watched namespaces' Secrets labelled owner=helm, so a
// reconcile lists nothing: it reads the records' labels from the cache and GETs a record's payload only when its
// resourceVersion is new to cache.ts. What this operator's own helm last did to a release is remembered
// (recordObserver, a helm middleware); a cached view older than that (the watch lagging our own write), an unsynced
// cache or an unknown outcome falls back to the authoritative LIST of reader.ts. Built by the manager; never caches
// Secret data.
import type { HelmMiddleware } from '../helm/middleware.js';
import { releaseFromSecret } from '../helm/release.js';
import type { AppliedRelease, Release } from '../helm/types.js';
import { unlessNotFound } from '../kube/errors.js';
import type { KubeClient, KubeObject } from '../kube/types.js';
import type { ReleaseCache } from './cache.js';
import { SECRETS } from './reader.js';
import { relevantRecords } from './relevant.js';
import type { HistoryOptions, ReleaseReader, StoredRelease } from './types.js';

/** What the operator last knew of a release's newest record: its revision and status, none at all, or unknown. */
type Known = { readonly version: number; readonly status: string } | 'gone' | 'unknown';

/** The cached release records of a namespace, by release name (from the informer's events). */
export interface ReleaseRecordView {
  /** False until the informer covering `namespace` has listed once (then reads fall back to the LIST). */
  synced(namespace: string): boolean;
  /** The metadata of the release's records (Secrets labelled owner=helm,name=<release>). */
  records(namespace: string, release: string): readonly KubeObject[];
}

export interface CachedReleaseReaderOptions {
  readonly kube: Pick<KubeClient, 'get'>;
  readonly view: ReleaseRecordView;
  /** The authoritative reader (reader.ts' releaseReader), sharing `cache`. */
  readonly listed: ReleaseReader;
  readonly cache: ReleaseCache;
  /**
   * Whether a release this process has not read yet may be read from the view. False when the view shows only the
   * records labelled with a shard (a release's older records, or those of a CR moved from another shard, may lack
   * it): its first read LISTs. @default true
   */
  readonly trustUnseen?: boolean | undefined;
}

/** Records new to the cache that a read fetches one by one; more than this, and it LISTs the release's records. */
const MAX_GETS = 2;

/** Releases remembered as uninstalled, at most: enough for a CR re-created at once, bounded under churn. */
const MAX_GONE = 1024;

export class CachedReleaseReader implements ReleaseReader {
  readonly #o: CachedReleaseReaderOptions;
  readonly #known = new Map<string, Exclude<Known, 'gone'>>();
  /** Uninstalled releases, oldest first. */
  readonly #gone = new Set<string>();

  constructor(options: CachedReleaseReaderOptions) {
    this.#o = options;
  }

  async history(namespace: string, release: string, { signal, neverReconciled }: HistoryOptions) {
    const key = `${namespace}/${release}`;
    const known = this.#gone.has(key)
      ? 'gone'
      : (this.#known.get(key) ?? (neverReconciled ? undefined : this.#unseen()));
    const view = this.#o.view.synced(namespace) ? relevantRecords(this.#o.view.records(namespace, release)) : undefined;
    // Several records new to the cache (a release first seen, e.g. after a restart): one LIST beats a GET each.
    const hits = view?.map((r) => this.#o.cache.peek(r.metadata.uid ?? '', r.metadata.resourceVersion ?? ''));
    const misses = hits?.filter((h) => h === undefined).length ?? 0;
    const usable = view && hits && misses <= MAX_GETS && known !== 'unknown' && covers(view, known);
    const fromCache = usable ? await this.#decoded(key, view, hits, signal) : undefined;
    if (fromCache && view) {
      // Superseded revisions are not read again: their decoded copies go (the LIST path does the same).
      this.#o.cache.retainOnly(key, new Set(view.map((r) => r.metadata.uid ?? '')));
      return fromCache;
    }
    const listed = await this.#o.listed.history(namespace, release, { signal });
    this.#remember(key, newest(listed.map((r) => r.release)));
    return listed;
  }

  /**
   * The metadata of the release's records as the informer shows them, or undefined when that view is not to be
   * trusted (not synced, or behind what this operator's own helm last did to the release). For the in-process
   * uninstall, which LISTs them instead then.
   */
  cachedRecords(namespace: string, release: string): readonly KubeObject[] | undefined {
    const key = `${namespace}/${release}`;
    if (!this.#o.view.synced(namespace)) return undefined;
    const known = this.#gone.has(key) ? 'gone' : (this.#known.get(key) ?? this.#unseen());
    const records = this.#o.view.records(namespace, release);
    return known !== 'unknown' && covers(relevantRecords(records), known) ? records : undefined;
  }

  /** After this operator's helm acted on a release: its result, 'gone' after an uninstall, 'unknown' after a failure. */
  observe(namespace: string, release: string, outcome: Known | AppliedRelease): void {
    this.#remember(
      `${namespace}/${release}`,
      typeof outcome !== 'string' && 'info' in outcome ? newest([outcome]) : outcome,
    );
  }

  /** What is known of a release this process has not read: nothing (trust the view), or 'unknown' (LIST it). */
  #unseen(): Known | undefined {
    return this.#o.trustUnseen === false ? 'unknown' : undefined;
  }

  #remember(key: string, known: Known): void {
    this.#gone.delete(key);
    this.#known.delete(key);
    if (known !== 'gone') {
      this.#known.set(key, known);
      return;
    }
    this.#gone.add(key);
    for (const oldest of this.#gone) {
      if (this.#gone.size <= MAX_GONE) break;
      this.#gone.delete(oldest);
    }
  }

  /** The view's records decoded (`hits` from the cache, a GET each for the rest); undefined when one vanished. */
  async #decoded(
    owner: string,
    view: readonly KubeObject[],
    hits: readonly (Release | undefined)[],
    signal: AbortSignal,
  ): Promise<StoredRelease[] | undefined> {
    const out: StoredRelease[] = [];
    for (const [i, meta] of view.entries()) {
      const { name = '', namespace = '' } = meta.metadata;
      let release = hits[i];
      if (!release) {
        const secret = await unlessNotFound(this.#o.kube.get(SECRETS, namespace, name, { signal }));
        if (!secret) return undefined;
        const { uid: u = '', resourceVersion: rv = '' } = secret.metadata;
        release = this.#o.cache.get({ owner, uid: u, resourceVersion: rv }, () => releaseFromSecret(secret));
      }
      out.push({ release, labels: meta.metadata.labels ?? {} });
    }
    return out;
  }
}

/** True when the cached view is at least as new as what the operator knows (or knows nothing of). */
function covers(view: readonly KubeObject[], known: Known | undefined): boolean {
  if (known === undefined) return true;
  if (known === 'gone') return view.length === 0;
  if (known === 'unknown') return false;
  return view.some((r) => {
    const version = Number(r.metadata.labels?.version);
    return version > known.version || (version === known.version && r.metadata.labels?.status === known.status);
  });
}

function newest(releases: readonly { version: number; info: { status: string } }[]): Known {
  const top = releases.reduce<(typeof releases)[number] | undefined>(
    (a, r) => (a && a.version >= r.version ? a : r),
    undefined,
  );
  return top ? { version: top.version, status: top.info.status } : 'gone';
}

/**
 * The middleware that tells the reader what each mutating helm call did to its release, so the next read trusts the
 * cache only once the cache shows it. Part of the process-wide chain (manager/process-helm.ts).
 */
export function recordObserver(reader: Pick<CachedReleaseReader, 'observe'>): HelmMiddleware {
  return {
    name: 'release records',
    async around(command, params, next) {
      const { namespace, release } = params;
      // A dry run writes no record: nothing to remember.
      if (command === 'version' || command === 'dry-run' || namespace === undefined || release === undefined) {
        return next(params);
      }
      try {
        const result = await next(params);
        const known: Known | AppliedRelease =
          command === 'uninstall' ? 'gone' : command === 'rollback' ? 'unknown' : (result as AppliedRelease);
        reader.observe(namespace, release, known);
        return result;
      } catch (err) {
        reader.observe(namespace, release, 'unknown');
        throw err;
      }
    },
  };
}
