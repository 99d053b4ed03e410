// A controller: event sources (informers) feed "namespace/name" keys into a WorkQueue, and N workers hand them to
// a Reconciler; reconcile-handler.ts applies each result (contract.ts's requeue rules, the log line, the metrics). Generic:
// knows nothing about Helm. Built by the manager per watched kind; never reads the environment or exits.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ControllerMetrics, Reconciler } from './contract.js';
import type { ReconcileTracker } from './reconcile-handler.js';
import { runWorkers } from './workers.js';
import { WorkQueue } from './workqueue.js';

/** What became of a dependent's change: queued, dropped (owner in backoff, or another shard's), or its own work. */
export type DependentVerdict = 'queued' | 'backoff' | 'elsewhere' | 'own';

/** Something that produces keys (an informer wired to `enqueue`) and can say when its first list is in. */
export interface Source {
  start(signal: AbortSignal): Promise<void>;
  waitForSync(signal: AbortSignal): Promise<void>;
  /** True once the first list is in. */
  hasSynced(): boolean;
}

export interface ControllerOptions {
  /** `<lowercase kind>-controller`, as operator-sdk names it; used in logs. */
  readonly name: string;
  /** Reconciles one key; `log` carries the controller name and a fresh reconcileID. */
  readonly reconcile: Reconciler['reconcile'];
  /** Workers; the same key is never reconciled by two at once. */
  readonly concurrency: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Reconcile and workqueue metrics. @default none */
  readonly metrics?: ControllerMetrics;
  /**
   * Whether this replica may reconcile the key now (sharding): refused keys are neither enqueued nor, when they are
   * already queued, reconciled (dropped and forgotten). @default every key
   */
  readonly admit?: (key: string) => boolean;
}

export class Controller {
  readonly queue: WorkQueue<string>;
  readonly #o: ControllerOptions;
  readonly #sources: Source[] = [];
  /** Keys whose last reconcile failed: their retry is scheduled with backoff. */
  readonly #failing = new Set<string>();
  /** Keys being reconciled now → whether a dependent changed meanwhile (decided once the reconcile ends). */
  readonly #running = new Map<string, boolean>();

  constructor(options: ControllerOptions) {
    this.#o = options;
    const m = options.metrics;
    this.queue = new WorkQueue<string>({
      clock: options.clock,
      ...(m
        ? {
            hooks: {
              onAdd: () => m.queueAdd(),
              onGet: (key, waitedMs) => m.queueGet(key, waitedMs / 1000),
              onDone: (key, workMs) => m.queueDone(key, workMs / 1000),
              onRetry: () => m.queueRetry(),
            },
          }
        : {}),
    });
  }

  get name(): string {
    return this.#o.name;
  }

  /** True when every source has its first list in (readiness). */
  synced(): boolean {
    return this.#sources.every((s) => s.hasSynced());
  }

  /** Adds a key (de-duplicated); what informer handlers call. */
  readonly enqueue = (key: string): void => {
    if (this.#o.admit?.(key) === false) return;
    this.queue.add(key);
  };

  /**
   * Adds a key because something it owns changed, unless the key is failing: its retry is already scheduled with
   * backoff, and a dependent's churn (e.g. a rollback rewriting objects) must not turn that backoff into a storm of
   * helm runs. During the key's own reconcile, an update or delete is looked at once afterwards (if it succeeds); a
   * creation is that reconcile's own helm work and is ignored (operator-sdk ignores every dependent creation).
   */
  readonly enqueueDependent = (key: string, event: 'add' | 'update' | 'delete' = 'update'): DependentVerdict => {
    if (this.#o.admit?.(key) === false) return 'elsewhere';
    if (this.#failing.has(key)) return 'backoff';
    if (this.#running.has(key)) {
      if (event === 'add') return 'own';
      this.#running.set(key, true);
      return 'queued';
    }
    this.queue.add(key);
    return 'queued';
  };

  /** A new spec deserves a prompt attempt: forgets the key's failures and backoff (operator-sdk keeps them). */
  resetBackoff(key: string): void {
    this.#failing.delete(key);
    this.queue.forget(key);
  }

  /** The dependent-trigger bookkeeping around each reconcile. */
  readonly #track: ReconcileTracker = {
    began: (key) => this.#running.set(key, false),
    settled: (key, s) => {
      if (!s.ok) return void this.#failing.add(key);
      this.#failing.delete(key);
      if (this.#running.get(key) === true) this.queue.add(key);
    },
    finished: (key) => this.#running.delete(key),
  };

  addSource(source: Source): void {
    this.#sources.push(source);
  }

  /**
   * Runs until `signal` aborts: starts the sources, waits for their first sync, then reconciles. `stop` (a graceful
   * stop) ends it without aborting the reconciles running: no key is taken any more, the running reconciles finish
   * under `signal`, then the sources stop and it resolves. @default `stop` = `signal`
   */
  async run(signal: AbortSignal, stop: AbortSignal = signal): Promise<void> {
    const log = this.#o.logger.child({ controller: this.#o.name });
    const ending = AbortSignal.any([signal, stop]);
    const sourcesEnd = new AbortController();
    const running = this.#sources.map((s) => s.start(AbortSignal.any([signal, sourcesEnd.signal])));
    try {
      try {
        await Promise.all(this.#sources.map((s) => s.waitForSync(ending)));
      } catch (err) {
        if (ending.aborted) return;
        throw err;
      }
      log.info({ workers: this.#o.concurrency }, 'Starting workers');
      const m = this.#o.metrics;
      m?.init(this.#o.concurrency, () => this.queue.len());
      const onEnd = () => this.queue.shutDown();
      ending.addEventListener('abort', onEnd, { once: true });
      try {
        await runWorkers({
          queue: this.queue,
          concurrency: this.#o.concurrency,
          signal,
          stop,
          handle: (key, s, rlog) => this.#o.reconcile(key, s, rlog),
          logger: log,
          ...(m ? { metrics: m } : {}),
          track: this.#track,
          ...(this.#o.admit ? { admit: this.#o.admit } : {}),
        });
      } finally {
        ending.removeEventListener('abort', onEnd);
        this.queue.shutDown();
      }
    } finally {
      sourcesEnd.abort(stop.reason);
      await Promise.allSettled(running);
    }
  }
}
