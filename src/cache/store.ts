// The informer's local copy of the objects it watches, keyed like client-go: "namespace/name", or "name" for
// cluster-scoped objects. Used by cache/informer.ts; readers get the stored objects themselves.
// Never copies or mutates objects: callers must treat what they get as read-only.

import type { KubeObject } from '../kube/types.js';

/** client-go's MetaNamespaceKeyFunc: `ns/name`, or `name` when the namespace is empty. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

/** The inverse of objectKey: `[namespace, name]`, with '' as the namespace of a cluster-scoped key. */
export function splitKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  return slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
}

export function keyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

export interface ReplaceResult<T> {
  readonly added: readonly T[];
  /** Objects whose resourceVersion changed, as [old, new]. */
  readonly updated: ReadonlyArray<readonly [T, T]>;
  /** Objects that were stored but are not in the new set (their last known state). */
  readonly deleted: readonly T[];
}

export class Store<T extends KubeObject = KubeObject> {
  #items = new Map<string, T>();

  get(namespace: string, name: string): T | undefined {
    return this.#items.get(objectKey(namespace, name));
  }

  getByKey(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  get size(): number {
    return this.#items.size;
  }

  /** Stores `obj` and returns what was stored under its key before. */
  upsert(obj: T): T | undefined {
    const key = keyOf(obj);
    const previous = this.#items.get(key);
    this.#items.set(key, obj);
    return previous;
  }

  /** Removes the object with `obj`'s key and returns it. */
  remove(obj: T): T | undefined {
    const key = keyOf(obj);
    const previous = this.#items.get(key);
    this.#items.delete(key);
    return previous;
  }

  /** Replaces the whole content (after a LIST) and reports the difference; unchanged objects keep their identity. */
  replace(objects: Iterable<T>): ReplaceResult<T> {
    const next = new Map<string, T>();
    const added: T[] = [];
    const updated: Array<readonly [T, T]> = [];
    for (const obj of objects) {
      const key = keyOf(obj);
      const old = this.#items.get(key);
      if (old === undefined) {
        added.push(obj);
        next.set(key, obj);
      } else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
        updated.push([old, obj]);
        next.set(key, obj);
      } else {
        next.set(key, old);
      }
    }
    const deleted = [...this.#items].filter(([key]) => !next.has(key)).map(([, obj]) => obj);
    this.#items = next;
    return { added, updated, deleted };
  }
}
