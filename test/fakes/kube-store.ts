// The object store behind test/fakes/kube-api.ts: objects by key with incrementing resourceVersions, the write
// rules of the API server (404, 409 on a stale resourceVersion, finalizers, dry runs, admission mutation) and the
// watch events each change sends to the open FakeWatches. Test-only; knows nothing of calls, reactors or errors.
import { ConflictError, NotFoundError } from '../../src/kube/errors.js';
import type { ApiResource, KubeObject } from '../../src/kube/types.js';
import { matchesSelector } from './kube-merge.js';
import { keyOf, resourceFor } from './kube-resources.js';
import type { FakeWatch } from './kube-watch.js';

export interface KubeStoreOptions {
  /** Stamp a new resourceVersion on every write. @default true */
  readonly resourceVersions?: boolean;
  /** What the server (an admission webhook, say) does to every object it writes or dry-runs. @default nothing */
  readonly mutate?: (obj: KubeObject) => KubeObject;
  /** The deletionTimestamp set on an object with finalizers. @default '2024-01-01T00:00:00Z' */
  readonly now?: () => string;
}

export class KubeStore {
  /** By `keyOf()`; tests may read it or change it behind the server's back. */
  readonly objects = new Map<string, KubeObject>();
  readonly watches: FakeWatch[] = [];
  readonly #served: readonly ApiResource[];
  readonly #o: KubeStoreOptions;
  #rv = 0;

  constructor(served: readonly ApiResource[], options: KubeStoreOptions) {
    this.#served = served;
    this.#o = options;
  }

  /** The latest resourceVersion handed out (a LIST's collection version). */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Keeps a numeric resourceVersion `obj` carries (later ones count on from it), else stamps one. */
  put(obj: KubeObject, res: ApiResource = resourceFor(this.#served, obj)): KubeObject {
    const given = Number(obj.metadata.resourceVersion);
    const keep = obj.metadata.resourceVersion !== undefined && Number.isInteger(given);
    if (keep) this.#rv = Math.max(this.#rv, given);
    const stored = keep ? structuredClone(obj) : this.#stamp(structuredClone(obj));
    const key = keyOf(res, obj.metadata.namespace ?? '', obj.metadata.name ?? '');
    const before = this.objects.get(key);
    this.objects.set(key, stored);
    this.#notify(res, before === undefined ? 'ADDED' : 'MODIFIED', stored, before);
    return stored;
  }

  /** The stored object itself; a NotFoundError when there is none. */
  existing(res: ApiResource, namespace: string, name: string): KubeObject {
    const key = keyOf(res, namespace, name);
    const obj = this.objects.get(key);
    if (obj === undefined)
      throw new NotFoundError({ status: 404, operation: `GET ${key}`, serverMessage: `${key} not found` });
    return obj;
  }

  /** A ConflictError unless `resourceVersion` is absent or current. */
  precondition(cur: KubeObject, resourceVersion: string | undefined): void {
    if (resourceVersion !== undefined && resourceVersion !== cur.metadata.resourceVersion)
      throw new ConflictError({ status: 409, serverMessage: 'the object has been modified' });
  }

  /** Copies of the objects of `res` in `namespace` ('' = all) matching `selector`, in insertion order. */
  items(res: ApiResource, namespace: string, selector: string | undefined): KubeObject[] {
    return [...this.objects.values()]
      .filter((o) => this.#inScope(res, o, namespace, selector))
      .map((o) => structuredClone(o));
  }

  /** Stores `obj` (or, for a dry run, only answers it); removes it when it is deleting and has no finalizer left. */
  write(res: ApiResource, obj: KubeObject, dryRun: boolean | undefined): KubeObject {
    const mutated = (this.#o.mutate ?? ((o: KubeObject) => o))(structuredClone(obj));
    if (dryRun === true) return mutated;
    const key = keyOf(res, mutated.metadata.namespace ?? '', mutated.metadata.name ?? '');
    if (mutated.metadata.deletionTimestamp !== undefined && (mutated.metadata.finalizers ?? []).length === 0) {
      this.#remove(res, key);
      return mutated;
    }
    const before = this.objects.get(key);
    const stored = this.#stamp(mutated);
    this.objects.set(key, stored);
    this.#notify(res, before === undefined ? 'ADDED' : 'MODIFIED', stored, before);
    return structuredClone(stored);
  }

  /** DELETE: gone at once without finalizers, else marked with a deletionTimestamp (once). */
  delete(res: ApiResource, namespace: string, name: string): void {
    const cur = this.existing(res, namespace, name);
    if ((cur.metadata.finalizers ?? []).length === 0) this.#remove(res, keyOf(res, namespace, name));
    else if (cur.metadata.deletionTimestamp === undefined) {
      cur.metadata.deletionTimestamp = this.#o.now?.() ?? '2024-01-01T00:00:00Z';
      this.#notify(res, 'MODIFIED', this.#stamp(cur));
    }
  }

  /** Opens `w`: with resourceVersion '' it first gets an ADDED event for every object in its scope. */
  watch(w: FakeWatch, initialEvents: boolean): void {
    this.watches.push(w);
    if (initialEvents && w.options.resourceVersion === '')
      for (const o of this.items(w.res, w.options.namespace ?? '', w.options.labelSelector)) w.added(o);
  }

  #stamp(obj: KubeObject): KubeObject {
    if (this.#o.resourceVersions !== false) obj.metadata = { ...obj.metadata, resourceVersion: String(++this.#rv) };
    return obj;
  }

  #remove(res: ApiResource, key: string): void {
    const gone = this.objects.get(key);
    this.objects.delete(key);
    if (gone !== undefined) this.#notify(res, 'DELETED', this.#stamp(structuredClone(gone)));
  }

  #inScope(res: ApiResource, o: KubeObject, namespace: string, selector: string | undefined): boolean {
    const apiVersion = res.group === '' ? res.version : `${res.group}/${res.version}`;
    const inNs = !res.namespaced || namespace === '' || o.metadata.namespace === namespace;
    return o.kind === res.kind && o.apiVersion === apiVersion && inNs && matchesSelector(o.metadata.labels, selector);
  }

  /**
   * Sends the change to the watches it concerns. As the API server does, a change that moves an object into a watch's
   * selector is ADDED to it, and one that moves it out is DELETED (`before`: the object before a MODIFIED).
   */
  #notify(res: ApiResource, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject, before?: KubeObject): void {
    for (const w of this.watches) {
      const { namespace = '', labelSelector } = w.options;
      if (w.done || w.res.plural !== res.plural) continue;
      const now = this.#inScope(res, obj, namespace, labelSelector);
      const was =
        type === 'MODIFIED' && before !== undefined ? this.#inScope(res, before, namespace, labelSelector) : now;
      if (now && was) w.emit({ type, object: structuredClone(obj) });
      else if (now) w.emit({ type: 'ADDED', object: structuredClone(obj) });
      else if (was) w.emit({ type: 'DELETED', object: structuredClone(obj) });
    }
  }
}
