// One copy of each release's manifest text for the whole process: the CR's status (as its informer stores it) and the
// decoded release record (records/cache.ts) hold the same text, and both ask here for the copy to keep. Used by
// cache/strip.ts and records/; never changes a text (an equal one is answered, or the new one kept), never unbounded.
import { remember, touch } from '../core/lru.js';

/** Releases whose manifest is pooled, at most: far above one replica's releases, so only a safety bound. */
const MAX_RELEASES = 8192;

export class ManifestPool {
  readonly #byRelease = new Map<string, string>();
  readonly #max: number;

  constructor(max = MAX_RELEASES) {
    this.#max = max;
  }

  /** The pooled copy of `text` if the release (`namespace/name`) has an equal one; else `text`, pooled from now on. */
  share(release: string, text: string): string {
    const pooled = touch(this.#byRelease, release);
    if (pooled === text) return pooled;
    remember(this.#byRelease, release, text, this.#max);
    return text;
  }

  /** Drops the release's copy (its records are gone). */
  forget(release: string): void {
    this.#byRelease.delete(release);
  }

  get size(): number {
    return this.#byRelease.size;
  }
}

/** The pool of this process. */
export const processManifestPool = new ManifestPool();
