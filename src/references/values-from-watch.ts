// Keeps values-from releases current: indexes which CRs reference which ConfigMaps and Secrets (reference-index.ts,
// fed by the CR informers), and runs one metadata-only watch per (kind, namespace) that some CR references, started
// with the first reference there and stopped with the last. Only referenced objects pass its filter, so its cache
// holds their names and resourceVersions: never a value, never the namespace's other objects. A change (add,
// update, delete, or a relist after a gap) reconciles every CR that references the object. Built by manager/process.ts.
import { Informer } from '../cache/informer.js';
import type { InformerHandler } from '../cache/informer-contract.js';
import { keyOf } from '../cache/store.js';
import type { ListWatch } from '../cache/strip.js';
import { REFERENCE_RESOURCES, type ReferenceKind, VALUES_FROM_ANNOTATION } from '../config/values-from.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { KubeObject, WatchEvent } from '../kube/types.js';
import { ReferenceIndex, type Scope, type ScopeChanges } from './reference-index.js';

export interface ValuesFromWatchOptions {
  readonly kube: ListWatch;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The watches run until this aborts (the operator's lifetime). */
  readonly signal: AbortSignal;
}

export class ValuesFromWatch {
  readonly #o: ValuesFromWatchOptions;
  readonly #index = new ReferenceIndex();
  /** How each controller (route) reconciles one of its CRs. */
  readonly #routes = new Map<string, (key: string) => void>();
  /** The running watch of each scope ("Kind/namespace"). */
  readonly #watches = new Map<string, { readonly informer: Informer; readonly stop: AbortController }>();

  constructor(options: ValuesFromWatchOptions) {
    this.#o = options;
  }

  /**
   * The handler for one controller's CR informers: it keeps the index current from each CR's annotation. `trigger`
   * reconciles a CR of that controller whose referenced object changed.
   */
  handler(route: string, trigger: (key: string) => void): InformerHandler {
    this.#routes.set(route, trigger);
    const update = (obj: KubeObject) => {
      const owner = { route, key: keyOf(obj) };
      this.#apply(
        this.#index.set(owner, obj.metadata.namespace ?? '', obj.metadata.annotations?.[VALUES_FROM_ANNOTATION]),
      );
    };
    return {
      onAdd: update,
      onUpdate: (_old, obj) => update(obj),
      onDelete: (obj) => this.#apply(this.#index.delete({ route, key: keyOf(obj) })),
    };
  }

  /** The scopes watched now, as `Kind/namespace` (for tests and debugging). */
  watched(): string[] {
    return [...this.#watches.keys()].sort();
  }

  /** Objects held by all the watches' caches: at most the referenced ones. */
  cachedObjects(): number {
    let n = 0;
    for (const w of this.#watches.values()) n += w.informer.list().length;
    return n;
  }

  #apply(changes: ScopeChanges): void {
    for (const scope of changes.stopped) this.#stop(scope);
    for (const scope of changes.started) this.#start(scope);
  }

  #start(scope: Scope): void {
    const id = `${scope.kind}/${scope.namespace}`;
    if (this.#watches.has(id) || this.#o.signal.aborted) return;
    const { kind, namespace } = scope;
    const log = this.#o.logger;
    const stop = new AbortController();
    const informer = new Informer({
      client: this.#referencedOnly(kind),
      resource: REFERENCE_RESOURCES[kind],
      namespace,
      clock: this.#o.clock,
      onEvent: (e) => {
        if (e.type === 'error')
          log.warn({ kind, namespace, phase: e.phase, err: errFields(e.error) }, 'Values-from watch error');
        else if (e.type === 'list') log.debug({ kind, namespace, items: e.items }, 'Informer listed');
      },
    });
    const changed = (event: 'add' | 'update' | 'delete') => (obj: KubeObject) =>
      this.#trigger(kind, namespace, obj.metadata.name ?? '', event);
    informer.addEventHandler({
      // The first list only fills the cache: each referencing CR is reconciled anyway when its informer adds it.
      onAdd: (obj) => {
        if (informer.hasSynced()) changed('add')(obj);
      },
      onUpdate: (_old, obj) => changed('update')(obj),
      onDelete: changed('delete'),
    });
    this.#watches.set(id, { informer, stop });
    void informer.start(AbortSignal.any([this.#o.signal, stop.signal]));
    log.info({ kind, namespace }, 'Watching values-from references');
  }

  #stop(scope: Scope): void {
    const id = `${scope.kind}/${scope.namespace}`;
    const watch = this.#watches.get(id);
    if (!watch) return;
    this.#watches.delete(id);
    watch.stop.abort();
    this.#o.logger.info({ kind: scope.kind, namespace: scope.namespace }, 'Stopped watching values-from references');
  }

  #trigger(kind: ReferenceKind, namespace: string, name: string, event: string): void {
    for (const owner of this.#index.owners(kind, namespace, name)) {
      const trigger = this.#routes.get(owner.route);
      if (!trigger) continue;
      this.#o.logger.debug(
        { key: owner.key, trigger: { kind, namespace, name, event } },
        'Values-from reference changed: reconcile',
      );
      trigger(owner.key);
    }
  }

  /** Metadata-only list and watch that keep only referenced objects, slimmed to name and resourceVersion. */
  #referencedOnly(kind: ReferenceKind): ListWatch {
    const { kube } = this.#o;
    const wanted = (obj: KubeObject) => this.#index.has(kind, obj.metadata.namespace ?? '', obj.metadata.name ?? '');
    return {
      async list(res, options) {
        const result = await kube.list(res, { ...options, metadataOnly: true });
        return { ...result, items: result.items.filter(wanted).map(slim) };
      },
      watch(res, options, onEvent, signal) {
        const each = (e: WatchEvent) => {
          if (e.type === 'ERROR' || e.type === 'BOOKMARK') onEvent(e);
          else if (wanted(e.object)) onEvent({ type: e.type, object: slim(e.object) });
        };
        return kube.watch(res, { ...options, metadataOnly: true }, each, signal);
      },
    };
  }
}

function slim(obj: KubeObject): KubeObject {
  const { name, namespace, resourceVersion } = obj.metadata;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
  };
}
