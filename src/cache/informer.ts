// A supervised list+watch of one resource in one namespace scope (optionally label-selected) that keeps a Store
// current and calls add/update/delete handlers. Used by controllers and dependent watches; start() runs it.
// It never stops on its own: errors are retried with capped backoff; never hot-loops, never throws from start().

import { waitFor } from '../core/abortable.js';
import { backoffDelay } from '../core/backoff.js';
import { type Clock, realClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { type KubeApiError, KubeTransportError, kubeApiErrorFromStatus } from '../kube/errors.js';
import type { KubeObject, WatchEvent } from '../kube/types.js';
import { processCensus } from './census.js';
import type { InformerEvent, InformerHandler, InformerOptions } from './informer-contract.js';
import { listAll } from './list.js';
import { Store } from './store.js';
import { watchEnd } from './watch-end.js';
import { startWatchdog } from './watchdog.js';

export class Informer {
  readonly #o: InformerOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #store = new Store();
  readonly #handlers = new Set<InformerHandler>();
  readonly #syncWaiters = new Set<() => void>();
  #synced = false;
  #started = false;
  #failures = 0;
  /** The last watch ended with 410: consecutive 410s keep doubling the delay. */
  #lastEndWasGone = false;
  /** Where the next watch starts; undefined means list first. */
  #resourceVersion: string | undefined;

  constructor(options: InformerOptions) {
    if (!options.resource.namespaced && (options.namespace ?? '') !== '') {
      throw new ConfigError(`${options.resource.kind} is cluster-scoped; an informer for it cannot use a namespace`);
    }
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
  }

  /** Adds a handler; it first gets onAdd for every object already stored. Returns a function that removes it. */
  addEventHandler(handler: InformerHandler): () => void {
    this.#handlers.add(handler);
    for (const obj of this.#store.list()) this.#call(() => handler.onAdd?.(obj));
    return () => {
      this.#handlers.delete(handler);
    };
  }

  /** True once the first LIST has been applied to the store. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once synced; rejects with `signal.reason` on abort. */
  waitForSync(signal: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return waitFor(signal, (done) => {
      const waiter = () => done();
      this.#syncWaiters.add(waiter);
      return () => this.#syncWaiters.delete(waiter);
    });
  }

  /** The stored object ('' namespace for cluster-scoped ones); read-only. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.#store.get(namespace, name);
  }

  list(): KubeObject[] {
    return this.#store.list();
  }

  /**
   * Lists, then watches and resumes, until `signal` aborts; then it resolves. It never rejects, except with a
   * ConfigError when called a second time.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new ConfigError('an informer can be started only once', { code: 'INFORMER_STARTED' });
    this.#started = true;
    const census = this.#o.census ?? processCensus;
    const kind = this.#o.resource.kind;
    const release = census.hold({ kind, size: () => this.#store.size });
    try {
      await this.#run(signal);
    } finally {
      release();
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const phase = this.#resourceVersion === undefined ? 'list' : 'watch';
      try {
        if (phase === 'list') await this.#list(signal);
        else await this.#watch(this.#resourceVersion ?? '', signal);
      } catch (error) {
        if (signal.aborted) break;
        const retryInMs = this.#nextDelay();
        this.#emit({ type: 'error', phase, error, retryInMs });
        try {
          await this.#clock.sleep(retryInMs, signal);
        } catch {
          break;
        }
      }
    }
  }

  /** Paginated LIST, then replace the store and dispatch the difference. */
  async #list(signal: AbortSignal): Promise<void> {
    const { client, resource, namespace = '', labelSelector, fieldSelector, pageSize = 500 } = this.#o;
    const opts = { client, resource, namespace, labelSelector, fieldSelector, pageSize, signal };
    const { items, resourceVersion, pages } = await listAll(opts);
    const { added, updated, deleted } = this.#store.replace(items);
    for (const obj of deleted) this.#dispatch((h) => h.onDelete?.(obj));
    for (const obj of added) this.#dispatch((h) => h.onAdd?.(obj));
    for (const [oldObj, newObj] of updated) this.#dispatch((h) => h.onUpdate?.(oldObj, newObj));
    this.#resourceVersion = resourceVersion;
    this.#emit({ type: 'list', resourceVersion, items: items.length, pages });
    if (!this.#synced) {
      this.#synced = true;
      for (const done of this.#syncWaiters) done();
      this.#syncWaiters.clear();
    }
  }

  /** One WATCH from `from`. Returns after a normal end, a stall or a 410 (which clears the resourceVersion). */
  async #watch(from: string, signal: AbortSignal): Promise<void> {
    const { client, resource, namespace = '', labelSelector, fieldSelector, watchTimeoutSeconds = 480 } = this.#o;
    const inactivityMs = this.#o.inactivityTimeoutMs ?? 150_000;
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const startedAt = this.#clock.now();
    let events = 0;
    let stalled = false;
    let eventError: KubeApiError | undefined;
    const watchdog = startWatchdog(this.#clock, inactivityMs, (idle) => {
      stalled = true;
      stop.abort(new KubeTransportError(`watch was silent for ${idle} ms`));
    });
    const timeoutSeconds = Math.max(1, Math.round(watchTimeoutSeconds * (0.9 + 0.2 * this.#random())));
    this.#emit({ type: 'watch-start', resourceVersion: from, timeoutSeconds });
    let failure: unknown;
    try {
      const options = {
        namespace,
        resourceVersion: from,
        timeoutSeconds,
        allowWatchBookmarks: true,
        ...(labelSelector === undefined ? {} : { labelSelector }),
        ...(fieldSelector === undefined ? {} : { fieldSelector }),
      };
      await client.watch(
        resource,
        options,
        (event) => {
          if (stop.signal.aborted) return;
          (this.#o.census ?? processCensus).watchEvent(resource.kind, event.type);
          watchdog.touch();
          if (event.type === 'ERROR') {
            eventError = kubeApiErrorFromStatus(event.object);
            stop.abort(eventError);
            return;
          }
          events++;
          this.#failures = 0;
          this.#apply(event);
        },
        stop.signal,
      );
    } catch (err) {
      failure = err;
    } finally {
      watchdog.cancel();
      signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) return;
    const durationMs = this.#clock.now() - startedAt;
    const end = watchEnd({ eventError, stalled, failure, events, durationMs });
    const reason = end.reason;
    const resourceVersion = this.#resourceVersion ?? from;
    this.#emit({ type: 'watch-end', reason, resourceVersion, events, durationMs });
    const goneBefore = this.#lastEndWasGone;
    this.#lastEndWasGone = reason === 'gone';
    if (reason === 'closed') this.#failures = 0;
    if (reason === 'error') throw end.failure;
    if (reason === 'gone') {
      this.#resourceVersion = undefined;
      this.#emit({ type: 'relist', reason: 'gone' });
      // A watch refused with 410 right away (e.g. after a long disconnect) relists after the backoff delay, so
      // a server that keeps answering 410 is not hammered with LIST+WATCH pairs. A 410 is an answer, though: the
      // errors before it (the server away) no longer count, so the first relist after an outage waits the base.
      if (events === 0) {
        if (!goneBefore) this.#failures = 0;
        await this.#clock.sleep(this.#nextDelay(), signal).catch(() => undefined);
      }
    }
  }

  #apply(event: Exclude<WatchEvent, { type: 'ERROR' }>): void {
    const obj = event.object;
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== '') this.#resourceVersion = rv;
    switch (event.type) {
      case 'BOOKMARK':
        this.#emit({ type: 'bookmark', resourceVersion: rv ?? '' });
        return;
      case 'DELETED':
        this.#store.remove(obj);
        this.#dispatch((h) => h.onDelete?.(obj));
        return;
      default: {
        const old = this.#store.upsert(obj);
        if (old === undefined) this.#dispatch((h) => h.onAdd?.(obj));
        else this.#dispatch((h) => h.onUpdate?.(old, obj));
      }
    }
  }

  #nextDelay(): number {
    const baseMs = this.#o.backoffBaseMs ?? 1_000;
    const maxMs = this.#o.backoffMaxMs ?? 10_000;
    return backoffDelay(this.#failures++, { baseMs, maxMs, jitter: 0.1, random: this.#random });
  }

  #dispatch(fn: (handler: InformerHandler) => void): void {
    for (const handler of this.#handlers) this.#call(() => fn(handler));
  }

  #call(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#emit({ type: 'error', phase: 'handler', error });
    }
  }

  #emit(event: InformerEvent): void {
    try {
      this.#o.onEvent?.(event);
    } catch {
      // Observers must not break the informer.
    }
  }
}
