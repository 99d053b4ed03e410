// The informers of one watched kind, by namespace ('' = all namespaces, or a cluster-scoped kind): the cached copy
// of an object or of a namespace's objects, and whether the informer covering a namespace has listed. Built by the manager per watch; read by
// the reconciler's CR access (as its cache) and the shard gate. Never starts or stops an informer.
import type { KubeObject } from '../kube/types.js';
import { splitKey } from './store.js';

/** What an InformerSet needs of each informer. */
export interface CachedInformer {
  get(namespace: string, name: string): KubeObject | undefined;
  list(): KubeObject[];
  hasSynced(): boolean;
}

export class InformerSet<I extends CachedInformer = CachedInformer> {
  readonly #byNamespace = new Map<string, I>();
  readonly #namespaced: boolean;

  /** `namespaced`: whether the kind is namespaced (a cluster-scoped object is stored under namespace ''). */
  constructor(namespaced: boolean) {
    this.#namespaced = namespaced;
  }

  add(namespace: string, informer: I): void {
    this.#byNamespace.set(namespace, informer);
  }

  values(): IterableIterator<I> {
    return this.#byNamespace.values();
  }

  /** The informer's copy of the object, if the informer covering `namespace` holds it. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.#of(namespace)?.get(this.#namespaced ? namespace : '', name);
  }

  /** The object of a "namespace/name" key. */
  getKey(key: string): KubeObject | undefined {
    return this.get(...splitKey(key));
  }

  /** The informer's copies of the objects in `namespace` (of every namespace for ''). */
  list(namespace: string): KubeObject[] {
    const all = this.#of(namespace)?.list() ?? [];
    return namespace === '' || !this.#namespaced ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** True once the informer covering `namespace` has listed (an object it does not hold then does not exist). */
  synced(namespace: string): boolean {
    return this.#of(namespace)?.hasSynced() ?? false;
  }

  #of(namespace: string): I | undefined {
    return this.#byNamespace.get(namespace) ?? this.#byNamespace.get('');
  }
}
