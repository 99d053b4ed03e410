// A controller: event sources (informers) feed "namespace/name" keys into a WorkQueue, and N workers hand them to
// a reconcile function (errors → per-key backoff, requeueAfter → delayed add). Generic: knows nothing about Helm.
// Called by the CLI per watched kind; never reads the environment and never exits the process.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { type Outcome, runWorkers } from './workers.js';
import { WorkQueue } from './workqueue.js';

/** Something that produces keys (an informer wired to `enqueue`) and can say when its first list is in. */
export interface Source {
  start(signal: AbortSignal): Promise<void>;
  waitForSync(signal: AbortSignal): Promise<void>;
}

export interface ControllerOptions {
  /** `<lowercase kind>-controller`, as operator-sdk names it; used in logs. */
  readonly name: string;
  /** Reconciles one key; `log` carries the controller name and a fresh reconcileID. */
  readonly reconcile: (key: string, signal: AbortSignal, log: Logger) => Promise<Outcome>;
  /** Workers; the same key is never reconciled by two at once. */
  readonly concurrency: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class Controller {
  readonly queue: WorkQueue<string>;
  readonly #o: ControllerOptions;
  readonly #sources: Source[] = [];

  constructor(options: ControllerOptions) {
    this.#o = options;
    this.queue = new WorkQueue<string>({ clock: options.clock });
  }

  /** Adds a key (de-duplicated); what informer handlers call. */
  readonly enqueue = (key: string): void => {
    this.queue.add(key);
  };

  addSource(source: Source): void {
    this.#sources.push(source);
  }

  /** Runs until `signal` aborts: starts the sources, waits for their first sync, then reconciles. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.#o.logger.child({ controller: this.#o.name });
    const running = this.#sources.map((s) => s.start(signal));
    try {
      await Promise.all(this.#sources.map((s) => s.waitForSync(signal)));
    } catch (err) {
      if (signal.aborted) return void (await Promise.allSettled(running));
      throw err;
    }
    log.info({ workers: this.#o.concurrency }, 'Starting workers');
    const onAbort = () => this.queue.shutDown();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await runWorkers({
        queue: this.queue,
        concurrency: this.#o.concurrency,
        signal,
        handle: async (key, s) => {
          const rlog = log.child({ reconcileID: randomUUID() });
          const started = performance.now();
          try {
            const outcome = await this.#o.reconcile(key, s, rlog);
            rlog.debug({ key, ms: Math.round(performance.now() - started) }, 'Reconciled');
            return outcome;
          } catch (err) {
            const e = err as { message?: string; code?: string };
            rlog.error({ key, code: e.code, err: e.message }, 'Reconciler error');
            throw err;
          }
        },
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.queue.shutDown();
      await Promise.allSettled(running);
    }
  }
}
