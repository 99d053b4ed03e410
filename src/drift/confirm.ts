// Confirms a drift that the subset check (compare.ts) suspects by asking the API server what a server-side apply of
// the desired object would store (a dry run), and remembers "no drift" verdicts per object version, bounded.
// Called by the drift repairer before it writes. Sends dry runs only: it must never write or cache a "drift".
import type { KubeObject } from '../kube/types.js';

/** Server bookkeeping that a dry run may change without the object changing. */
const BOOKKEEPING = new Set(['resourceVersion', 'managedFields', 'generation', 'creationTimestamp', 'selfLink']);
/** Verdicts kept; enough for every object of many releases, small enough to never matter. */
const DEFAULT_LIMIT = 4096;

type Obj = Record<string, unknown>;

export interface DriftConfirmerOptions {
  /** How many "no drift" verdicts to remember (the oldest go first). @default 4096 */
  readonly limit?: number;
}

/** The verdict of a dry run: `drift` when the apply would change the object, `unknown` when the dry run failed. */
export type Verdict = 'clean' | 'drift' | 'unknown';

export class DriftConfirmer {
  readonly #limit: number;
  /** An id per desired object (the repairer parses each manifest once, so an object stands for its content). */
  readonly #ids = new WeakMap<object, number>();
  #nextId = 0;
  /** "No drift" verdicts by desired object + live uid + live resourceVersion, oldest first. */
  readonly #clean = new Set<string>();

  constructor(options: DriftConfirmerOptions = {}) {
    this.#limit = Math.max(1, options.limit ?? DEFAULT_LIMIT);
  }

  /** Whether a dry run already found that applying `desired` leaves this version of `live` unchanged. */
  knownClean(desired: object, live: KubeObject): boolean {
    const key = this.#keyOf(desired, live);
    return key !== undefined && this.#clean.has(key);
  }

  /**
   * Runs `dryRun` (a server-side apply dry run of `desired`) and compares what it would store with `live`. A clean
   * verdict is remembered for this version of `live`. A failed dry run (e.g. a webhook without dry-run support) is
   * `unknown`; an abort rejects.
   */
  async confirm(
    desired: object,
    live: KubeObject,
    dryRun: (signal: AbortSignal) => Promise<KubeObject>,
    signal: AbortSignal,
  ): Promise<Verdict> {
    let stored: KubeObject;
    try {
      stored = await dryRun(signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return 'unknown';
    }
    if (!sameStored(stored, live)) return 'drift';
    const key = this.#keyOf(desired, live);
    if (key !== undefined && !this.#clean.has(key)) {
      if (this.#clean.size >= this.#limit) this.#clean.delete(this.#clean.values().next().value as string);
      this.#clean.add(key);
    }
    return 'clean';
  }

  #keyOf(desired: object, live: KubeObject): string | undefined {
    const { uid, resourceVersion } = live.metadata;
    if (!resourceVersion) return undefined;
    let id = this.#ids.get(desired);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(desired, id);
    }
    return `${id}\u0000${uid ?? ''}\u0000${resourceVersion}`;
  }
}

/** Whether two forms of an object carry the same content, ignoring status and server bookkeeping in metadata. */
export function sameStored(a: KubeObject, b: KubeObject): boolean {
  const content = (o: KubeObject): Obj => {
    const { status: _status, metadata, ...rest } = o;
    const kept = Object.entries(metadata ?? {}).filter(([k]) => !BOOKKEEPING.has(k));
    return { ...rest, metadata: Object.fromEntries(kept) };
  };
  return sameJson(content(a), content(b));
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  const bo = b as Obj;
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(bo, k) && sameJson((a as Obj)[k], bo[k]));
}
