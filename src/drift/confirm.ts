// Confirms a drift that the subset check (compare.ts) suspects by asking the API server what writing the chart's
// fields would store (a dry run: server-side apply, or a merge patch of the suspected fields where the server
// rejects the object for server-side apply), and learns from each "no drift" answer what the server stores for the
// rendered object (its defaults), so that the same suspicion is never raised again for that rendering.
// Called by the drift repairer before it writes. Sends dry runs only: it must never write or remember a "drift".
import { isRecord } from '../core/guards.js';
import type { KubeObject } from '../kube/types.js';
import { type DriftDiff, valueAt } from './compare.js';
import { rejectsObject } from './rejection.js';

/** Server bookkeeping that a dry run may change without the object changing. */
const BOOKKEEPING = new Set(['resourceVersion', 'managedFields', 'generation', 'creationTimestamp', 'selfLink']);
/** Verdicts and notes kept; enough for every object of many releases, small enough to never matter. */
const DEFAULT_LIMIT = 4096;

type Obj = Record<string, unknown>;

export interface DriftConfirmerOptions {
  /** How many "no drift" verdicts (and reported notes) to remember (the oldest go first). @default 4096 */
  readonly limit?: number;
}

/** How a repair writes: a forced server-side apply of the object, or a merge patch of its drifted fields. */
export type WriteMethod = 'apply' | 'merge';

/** The dry runs a confirmation may send: the write each method would make, with dryRun set. */
export interface DryRuns {
  readonly apply: (signal: AbortSignal) => Promise<KubeObject>;
  readonly merge: (signal: AbortSignal) => Promise<KubeObject>;
}

/**
 * `drift`: writing would change the object, by the method given. `clean`: it would not. `unknown`: no dry run could
 * tell (the server rejected both, e.g. a webhook without dry-run support), and `why` says so.
 */
export type Verdict =
  | { readonly kind: 'clean' }
  | { readonly kind: 'drift'; readonly method: WriteMethod }
  | { readonly kind: 'unknown'; readonly why: string };

export class DriftConfirmer {
  readonly #limit: number;
  /** An id per desired object (the repairer parses each manifest once, so an object stands for its content). */
  readonly #ids = new WeakMap<object, number>();
  #nextId = 0;
  /** "No drift" verdicts by desired object + live uid + live resourceVersion, oldest first. */
  readonly #clean = new Set<string>();
  /** What the server stores for each desired object, where a dry run showed it differs from the rendering. */
  readonly #stored = new WeakMap<object, Obj>();
  /** Desired objects that the server rejects for server-side apply (duplicate keys in a keyed list, …). */
  readonly #applyRejected = new WeakSet<object>();
  /** Notes already given (an unconfirmed drift) per object version, oldest first. */
  readonly #noted = new Set<string>();
  /** Object versions for which the server refused the write (or both dry runs) outright, oldest first. */
  readonly #refused = new Set<string>();

  constructor(options: DriftConfirmerOptions = {}) {
    this.#limit = Math.max(1, options.limit ?? DEFAULT_LIMIT);
  }

  /** The desired object as the server stores it, as far as dry runs have shown; the rendering itself until then. */
  storedForm(desired: Obj): Obj {
    return this.#stored.get(desired) ?? desired;
  }

  /** Whether a dry run already found that writing `desired` leaves this version of `live` unchanged. */
  knownClean(desired: object, live: KubeObject): boolean {
    return this.#clean.has(this.#keyOf(desired, live) ?? '');
  }

  /** Whether the server rejects `desired` for server-side apply (its repairs are merge patches). */
  applyRejected(desired: object): boolean {
    return this.#applyRejected.has(desired);
  }

  /** Remembers that the server rejects `desired` for server-side apply (seen on a create, say). */
  rejectApply(desired: object): void {
    this.#applyRejected.add(desired);
  }

  /**
   * True the first time it is asked about `what` for this version of `live` (null: the object is absent), so that
   * a note (a Warning event) is given once per object version, not every period.
   */
  firstNote(desired: object, live: KubeObject | null, what: string): boolean {
    const key = `${this.#versionOf(desired, live)}\u0000${what}`;
    if (this.#noted.has(key)) return false;
    remember(this.#noted, key, this.#limit);
    return true;
  }

  /** Remembers that the server refuses writing `desired` over this version of `live` (null: creating it). */
  refuse(desired: object, live: KubeObject | null): void {
    remember(this.#refused, this.#versionOf(desired, live), this.#limit);
  }

  /** Whether the server refused writing `desired` over this version of `live`: the same write would fail again. */
  refused(desired: object, live: KubeObject | null): boolean {
    return this.#refused.has(this.#versionOf(desired, live));
  }

  /**
   * Sends the dry run of the write a repair would make and compares what it would store with `live`. Server-side
   * apply first; where the server rejects the object for it, a merge patch of the suspected fields. A clean verdict
   * is remembered for this version of `live`, and what the server stores at the suspected places becomes part of
   * storedForm(desired). An abort rejects.
   */
  async confirm(
    desired: Obj,
    live: KubeObject,
    suspected: readonly DriftDiff[],
    dryRuns: DryRuns,
    signal: AbortSignal,
  ): Promise<Verdict> {
    let method: WriteMethod = this.#applyRejected.has(desired) ? 'merge' : 'apply';
    let stored: KubeObject;
    try {
      stored = await dryRuns[method](signal);
    } catch (err) {
      if (signal.aborted) throw err;
      if (method === 'merge' && rejectsObject(err)) this.refuse(desired, live);
      if (method === 'merge' || !rejectsObject(err)) return { kind: 'unknown', why: reasonOf(err) };
      this.#applyRejected.add(desired);
      method = 'merge';
      try {
        stored = await dryRuns.merge(signal);
      } catch (mergeErr) {
        if (signal.aborted) throw mergeErr;
        if (rejectsObject(mergeErr)) this.refuse(desired, live);
        return { kind: 'unknown', why: reasonOf(mergeErr) };
      }
    }
    if (!sameStored(stored, live)) return { kind: 'drift', method };
    const key = this.#keyOf(desired, live);
    if (key !== undefined) remember(this.#clean, key, this.#limit);
    this.#learn(desired, stored, suspected);
    return { kind: 'clean' };
  }

  /** storedForm(desired) with the server's values at the suspected places (absent there: no opinion, a null). */
  #learn(desired: Obj, stored: KubeObject, suspected: readonly DriftDiff[]): void {
    const secret = desired.kind === 'Secret';
    // Secret data is compared as bytes, not as stored: it keeps the per-version verdict alone.
    const places = suspected.filter((d) => !(secret && (d.trail[0] === 'data' || d.trail[0] === 'stringData')));
    if (places.length === 0) return;
    const form = structuredClone(this.storedForm(desired));
    for (const { trail } of places) {
      const value = valueAt(form, stored, trail);
      // A list element the server does not keep stays as rendered: a null element would unkey the list.
      if (value === undefined && typeof trail[trail.length - 1] === 'number') continue;
      setAt(form, trail, value ?? null);
    }
    this.#stored.set(desired, form);
  }

  #idOf(desired: object): number {
    let id = this.#ids.get(desired);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(desired, id);
    }
    return id;
  }

  /** The key of one version of an object (its absence counts as a version). */
  #versionOf(desired: object, live: KubeObject | null): string {
    return this.#keyOf(desired, live) ?? `${this.#idOf(desired)}\u0000absent`;
  }

  #keyOf(desired: object, live: KubeObject | null): string | undefined {
    if (!live?.metadata.resourceVersion) return undefined;
    const { uid, resourceVersion } = live.metadata;
    return `${this.#idOf(desired)}\u0000${uid ?? ''}\u0000${resourceVersion}`;
  }
}

function remember(set: Set<string>, key: string, limit: number): void {
  if (set.has(key)) return;
  if (set.size >= limit) set.delete(set.values().next().value as string);
  set.add(key);
}

/** Sets the value at `trail` (keys and indices, as the desired object has them) inside `target`, in place. */
function setAt(target: unknown, trail: readonly (string | number)[], value: unknown): void {
  let at: unknown = target;
  for (const [i, step] of trail.entries()) {
    const last = i === trail.length - 1;
    if (typeof step === 'number' ? !Array.isArray(at) : !isRecord(at)) return;
    const holder = at as Record<string | number, unknown>;
    if (last) holder[step] = value;
    else at = holder[step];
  }
}

/** The server's reason, for a note: the error's message (API errors carry no object contents, only names). */
function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
