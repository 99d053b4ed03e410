// Which custom resources reference which ConfigMaps and Secrets through their values-from annotation, kept from the
// CR informers' events (not from reconciles, so a deleted CR or a removed annotation is forgotten at once), and
// which (kind, namespace) scopes therefore need a watch. Pure; used by values-from-watch.ts only. A malformed
// annotation references nothing here (the reconcile reports it).
import { parseValuesFrom, type ReferenceKind } from '../config/values-from.js';

/** A CR that references objects: `route` names its controller, `key` is its "namespace/name". */
export interface ReferenceOwner {
  readonly route: string;
  readonly key: string;
}

/** The scopes (`kind` in `namespace`) that gained their first reference or lost their last one. */
export interface ScopeChanges {
  readonly started: readonly Scope[];
  readonly stopped: readonly Scope[];
}

export interface Scope {
  readonly kind: ReferenceKind;
  readonly namespace: string;
}

const scopeId = (s: Scope) => `${s.kind}/${s.namespace}`;
const refId = (kind: ReferenceKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const ownerId = (o: ReferenceOwner) => `${o.route}\n${o.key}`;

interface Entry {
  readonly owner: ReferenceOwner;
  /** The annotation text the refs were parsed from (unchanged text is not parsed again). */
  readonly annotation: string;
  readonly refs: ReadonlySet<string>;
  readonly scopes: ReadonlyMap<string, Scope>;
}

export class ReferenceIndex {
  readonly #byOwner = new Map<string, Entry>();
  /** refId → the owners that reference it. */
  readonly #byRef = new Map<string, Map<string, ReferenceOwner>>();
  /** scopeId → how many owners reference something in it. */
  readonly #scopes = new Map<string, number>();

  /** Records what `owner` (a CR in `namespace`) references now, by its annotation's text (undefined: nothing). */
  set(owner: ReferenceOwner, namespace: string, annotation: string | undefined): ScopeChanges {
    const id = ownerId(owner);
    const before = this.#byOwner.get(id);
    if ((before?.annotation ?? '') === (annotation ?? '')) return { started: [], stopped: [] };
    const refs = new Set<string>();
    const scopes = new Map<string, Scope>();
    // A cluster-scoped CR has no namespace to read from (its reconcile says so): it references nothing.
    for (const ref of namespace === '' ? [] : safeParse(annotation)) {
      refs.add(refId(ref.kind, namespace, ref.name));
      const scope = { kind: ref.kind, namespace };
      scopes.set(scopeId(scope), scope);
    }
    const stopped = this.#remove(id);
    if (annotation === undefined || annotation === '') return { started: [], stopped };
    this.#byOwner.set(id, { owner, annotation, refs, scopes });
    for (const ref of refs) this.#byRef.set(ref, (this.#byRef.get(ref) ?? new Map()).set(id, owner));
    const started: Scope[] = [];
    for (const [sid, scope] of scopes) {
      const n = this.#scopes.get(sid) ?? 0;
      this.#scopes.set(sid, n + 1);
      if (n === 0) started.push(scope);
    }
    // A scope the owner left and entered again in one change neither starts nor stops.
    const again = new Set(started.map(scopeId));
    return {
      started: started.filter((s) => !stopped.some((t) => scopeId(t) === scopeId(s))),
      stopped: stopped.filter((s) => !again.has(scopeId(s))),
    };
  }

  /** Forgets `owner` (its CR was deleted). */
  delete(owner: ReferenceOwner): ScopeChanges {
    return { started: [], stopped: this.#remove(ownerId(owner)) };
  }

  /** Whether some CR references this object. */
  has(kind: ReferenceKind, namespace: string, name: string): boolean {
    return this.#byRef.has(refId(kind, namespace, name));
  }

  /** The CRs that reference this object. */
  owners(kind: ReferenceKind, namespace: string, name: string): ReferenceOwner[] {
    return [...(this.#byRef.get(refId(kind, namespace, name))?.values() ?? [])];
  }

  /** The scopes with at least one reference, as `Kind/namespace`. */
  scopes(): string[] {
    return [...this.#scopes.keys()].sort();
  }

  /** Drops the owner's entry; returns the scopes nobody references any more. */
  #remove(id: string): Scope[] {
    const entry = this.#byOwner.get(id);
    if (!entry) return [];
    this.#byOwner.delete(id);
    for (const ref of entry.refs) {
      const owners = this.#byRef.get(ref);
      owners?.delete(id);
      if (owners?.size === 0) this.#byRef.delete(ref);
    }
    const stopped: Scope[] = [];
    for (const [sid, scope] of entry.scopes) {
      const n = (this.#scopes.get(sid) ?? 1) - 1;
      if (n > 0) this.#scopes.set(sid, n);
      else {
        this.#scopes.delete(sid);
        stopped.push(scope);
      }
    }
    return stopped;
  }
}

function safeParse(annotation: string | undefined) {
  try {
    return parseValuesFrom(annotation);
  } catch {
    return [];
  }
}
