// Keeps decoded Helm release records by Secret uid and resourceVersion, so a reconcile that finds a release's
// records unchanged (every idle one) decodes nothing: a record's payload never changes without a new resourceVersion.
// Bounded by the decoded records' size, least recently used out first. Used by records/reader.ts' releaseReader;
// never keeps a record that the last listing of its release no longer returned, nor one whose Secret was deleted.
import { type ManifestPool, processManifestPool } from '../cache/manifest-pool.js';
import type { Release } from '../helm/types.js';

export interface ReleaseCacheOptions {
  /** Upper bound on the cached records' size, in characters of their JSON. @default 8 MiB */
  readonly maxChars?: number;
  /** Where a record's manifest is shared with the CR's status (cache/manifest-pool.ts). @default processManifestPool */
  readonly pool?: ManifestPool;
}

interface Entry {
  readonly resourceVersion: string;
  readonly release: Release;
  readonly chars: number;
  readonly owner: string;
}

export class ReleaseCache {
  readonly #max: number;
  /** By Secret uid, least recently used first. */
  readonly #entries = new Map<string, Entry>();
  /** Secret uids by release (`namespace/name`). */
  readonly #byRelease = new Map<string, Set<string>>();
  readonly #pool: ManifestPool;
  #chars = 0;

  constructor(options: ReleaseCacheOptions = {}) {
    this.#max = options.maxChars ?? 8 * 1024 * 1024;
    this.#pool = options.pool ?? processManifestPool;
  }

  /**
   * The record of `owner` (the release, `namespace/name`) stored in the Secret `uid` at `resourceVersion`, decoding
   * it only when the cache has no copy at that resourceVersion.
   */
  get(a: { owner: string; uid: string; resourceVersion: string }, decode: () => Release): Release {
    const cached = this.peek(a.uid, a.resourceVersion);
    if (cached) return cached;
    const decoded = decode();
    // The CR's status shows the same text: keep one copy (an equal string, so nothing reads a difference).
    const release =
      decoded.manifest === '' ? decoded : { ...decoded, manifest: this.#pool.share(a.owner, decoded.manifest) };
    this.#drop(a.uid);
    if (a.uid === '' || a.resourceVersion === '') return release;
    const chars = JSON.stringify(release).length;
    if (chars > this.#max / 2) return release; // one huge record must not evict all the others
    this.#entries.set(a.uid, { resourceVersion: a.resourceVersion, release, chars, owner: a.owner });
    this.#chars += chars;
    const uids = this.#byRelease.get(a.owner) ?? new Set<string>();
    this.#byRelease.set(a.owner, uids.add(a.uid));
    for (const uid of this.#entries.keys()) {
      if (this.#chars <= this.#max) break;
      this.#drop(uid);
    }
    return release;
  }

  /** The record stored in Secret `uid` at `resourceVersion`, if cached (then it counts as used). */
  peek(uid: string, resourceVersion: string): Release | undefined {
    const hit = this.#entries.get(uid);
    if (!hit || hit.resourceVersion !== resourceVersion) return undefined;
    this.#entries.delete(uid);
    this.#entries.set(uid, hit);
    return hit.release;
  }

  /** Forgets the records of `owner` whose Secrets were not in its latest listing (pruned or uninstalled). */
  retainOnly(owner: string, listed: ReadonlySet<string>): void {
    for (const uid of this.#byRelease.get(owner) ?? []) if (!listed.has(uid)) this.#drop(uid);
  }

  /** Forgets the record stored in Secret `uid` (the informer saw that Secret deleted). */
  forget(uid: string): void {
    this.#drop(uid);
  }

  /** Forgets the pooled manifest of `owner` (`namespace/name`), whose records are all gone (uninstalled). */
  forgetRelease(owner: string): void {
    this.#pool.forget(owner);
  }

  /** Records and their size in characters, for tests and metrics. */
  stats(): { readonly records: number; readonly chars: number } {
    return { records: this.#entries.size, chars: this.#chars };
  }

  #drop(uid: string): void {
    const e = this.#entries.get(uid);
    if (!e) return;
    this.#entries.delete(uid);
    this.#chars -= e.chars;
    const uids = this.#byRelease.get(e.owner);
    uids?.delete(uid);
    if (uids?.size === 0) this.#byRelease.delete(e.owner);
  }
}
