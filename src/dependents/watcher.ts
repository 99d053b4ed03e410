// Dependent watches: one label-selected informer per kind that a release manifest contains (per watched namespace
// for namespaced kinds), started on demand after installs and upgrades. Routes each relevant change (a spec or
// metadata change, or a status change that flips readiness) to the owning CR's controller and answers cache
// lookups for drift repair and the Ready condition. Called by the operator's dependents adapter.
// Never caches objects outside this operator's charts (the selector is the chart label): no cluster-wide Secrets.
import { Informer } from '../cache/informer.js';
import { transformingClient } from '../cache/strip.js';
import { changedBeyondBookkeeping } from '../controller/predicates.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { shardSelector } from '../leader/shard-label.js';
import { CHART_LABEL } from '../ownership/rules.js';
import { healthKey } from '../readiness/rules.js';
import { ownerOf } from './mapping.js';

/** What a dependent event asks for: reconcile the CR `key` of the kind `groupKind` (`Kind.group`). */
export interface DependentTrigger {
  readonly groupKind: string;
  readonly key: string;
  readonly event: 'add' | 'update' | 'delete';
  readonly object: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly namespace: string;
    readonly name: string;
  };
}

export interface DependentWatcherOptions {
  readonly kube: Pick<KubeClient, 'list' | 'watch'>;
  /** Watched namespaces for namespaced kinds; [''] means all. */
  readonly namespaces: readonly string[];
  /** Chart names (the chart label's values) whose objects are watched. */
  readonly charts: readonly string[];
  readonly trigger: (t: DependentTrigger) => void;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The informers run until this aborts (the operator's lifetime, not a reconcile's; with sharding, a shard's term). */
  readonly signal: AbortSignal;
  /** Sharding: watch only the objects labelled with this shard (the post-renderer writes it). @default every one */
  readonly shard?: number | undefined;
}

/** What the reconcilers and the manager use of the dependent watches: one watcher, or one per shard held. */
export type Dependents = Pick<DependentWatcher, 'ensure' | 'waitForSync' | 'get' | 'expectEcho' | 'cachedObjects'>;

/** The answer of a cache lookup: the object, `null` for "synced and absent", undefined for "not watched here". */
export type CacheAnswer = KubeObject | null | undefined;

export class DependentWatcher {
  readonly #o: DependentWatcherOptions;
  readonly #selector: string;
  /** Per resource ("group/version/plural"), its informers keyed by namespace scope. */
  readonly #informers = new Map<string, Map<string, Informer>>();
  /** Objects the operator itself just wrote ("resource/namespace/name" → resourceVersion): their events are echoes. */
  readonly #echoes = new Map<string, string>();

  constructor(options: DependentWatcherOptions) {
    this.#o = options;
    const charts = `${CHART_LABEL} in (${[...new Set(options.charts)].sort().join(',')})`;
    this.#selector = options.shard === undefined ? charts : shardSelector(charts, options.shard);
  }

  /** Starts informers for resources not yet watched (they run until the operator stops). Does not wait for sync. */
  ensure(resources: readonly ApiResource[]): void {
    const signal = this.#o.signal;
    for (const res of resources) {
      const id = resourceId(res);
      if (this.#informers.has(id) || signal.aborted) continue;
      const scopes = new Map<string, Informer>();
      this.#informers.set(id, scopes);
      for (const namespace of res.namespaced ? this.#o.namespaces : ['']) {
        scopes.set(namespace, this.#start(res, namespace, signal));
      }
      this.#o.logger.info(
        { group: res.group, version: res.version, kind: res.kind, selector: this.#selector },
        'Watching dependent resource',
      );
    }
  }

  /**
   * Resolves once the informers of `resources` have finished their first LIST, or after `timeoutMs` (a kind the API
   * server cannot list stays unknown, it must not hold a reconcile). Rejects only when `signal` aborts.
   */
  async waitForSync(resources: readonly ApiResource[], timeoutMs: number, signal: AbortSignal): Promise<void> {
    const pending = resources
      .flatMap((res) => [...(this.#informers.get(resourceId(res))?.values() ?? [])])
      .filter((informer) => !informer.hasSynced());
    if (pending.length === 0) return;
    const bounded = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    await Promise.all(pending.map((informer) => informer.waitForSync(bounded))).catch(() => {
      signal.throwIfAborted();
    });
  }

  /** The cached object when its kind is watched in that namespace and the informer has synced. */
  get(res: ApiResource, namespace: string, name: string): CacheAnswer {
    const scopes = this.#informers.get(resourceId(res));
    const informer = scopes?.get(res.namespaced ? namespace : '') ?? scopes?.get('');
    if (!informer?.hasSynced()) return undefined;
    return informer.get(res.namespaced ? namespace : '', name) ?? null;
  }

  /**
   * Drift repair wrote `obj`: the watch event carrying exactly this resourceVersion is our own echo and triggers no
   * reconcile (it would only find nothing to do, at the price of API requests under the client rate limit).
   */
  expectEcho(res: ApiResource, obj: KubeObject): void {
    const rv = obj.metadata.resourceVersion;
    if (!rv) return;
    if (this.#echoes.size >= MAX_ECHOES) this.#echoes.delete(this.#echoes.keys().next().value as string);
    this.#echoes.set(echoKey(resourceId(res), obj), rv);
  }

  /** Objects held in every dependent cache (for the closing figures and debugging). */
  cachedObjects(): number {
    let n = 0;
    for (const scopes of this.#informers.values()) for (const i of scopes.values()) n += i.list().length;
    return n;
  }

  /** Whether the owner ("namespace/name", or "name" when cluster-scoped) is in a namespace this operator watches. */
  #watchesOwner(key: string): boolean {
    const namespaces = this.#o.namespaces;
    if (namespaces.includes('') || !key.includes('/')) return true;
    return namespaces.includes(key.slice(0, key.indexOf('/')));
  }

  #start(res: ApiResource, namespace: string, signal: AbortSignal): Informer {
    const log = this.#o.logger;
    const informer = new Informer({
      client: transformingClient(this.#o.kube),
      resource: res,
      namespace,
      labelSelector: this.#selector,
      clock: this.#o.clock,
      onEvent: (e) => {
        if (e.type === 'error') {
          log.warn({ kind: res.kind, namespace, phase: e.phase, err: errFields(e.error) }, 'Dependent watch error');
        } else if (e.type === 'list') log.debug({ kind: res.kind, namespace, items: e.items }, 'Informer listed');
      },
    });
    const id = resourceId(res);
    const emit = (event: DependentTrigger['event'], obj: KubeObject) => {
      const owner = ownerOf(obj);
      // A cluster-scoped object may name a CR in a namespace this operator does not watch: another operator's.
      if (!owner || !this.#watchesOwner(owner.key)) return;
      const key = echoKey(id, obj);
      const echo = this.#echoes.get(key);
      if (echo !== undefined) {
        this.#echoes.delete(key);
        if (event !== 'delete' && echo === obj.metadata.resourceVersion) return;
      }
      const m = obj.metadata;
      const object = { apiVersion: obj.apiVersion, kind: obj.kind, namespace: m.namespace ?? '', name: m.name ?? '' };
      this.#o.trigger({ ...owner, event, object });
    };
    informer.addEventHandler({
      onAdd: (obj) => emit('add', obj),
      onUpdate: (old, obj) => {
        // A status-only change matters when it changes the object's readiness (the owner's Ready condition).
        if (changedBeyondBookkeeping(old, obj) || healthKey(old) !== healthKey(obj)) emit('update', obj);
      },
      onDelete: (obj) => emit('delete', obj),
    });
    void informer.start(signal);
    return informer;
  }
}

/** Bound on remembered echoes (an echo whose event never comes, e.g. after a relist, must not leak). */
const MAX_ECHOES = 1_000;

function echoKey(resource: string, obj: KubeObject): string {
  return `${resource}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

function resourceId(res: ApiResource): string {
  return `${res.group}/${res.version}/${res.plural}`;
}
