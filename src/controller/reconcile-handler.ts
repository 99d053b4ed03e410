// Applies one reconcile, as controller-runtime's reconcileHandler: runs it with a fresh reconcileID logger, then
// does the queue action (contract.ts's requeue rules), the log line and the metrics. Called by the worker pool
// (workers.ts) for every key it takes; it never throws and never calls queue.done (the pool does).
import { randomUUID } from 'node:crypto';
import { errFields } from '../core/error-fields.js';
import { type Logger, silentLogger } from '../core/logger.js';
import { type ControllerMetrics, type Outcome, queueAction, resultLabel, type Settled } from './contract.js';
import type { WorkQueue } from './workqueue.js';

/** Reconciles one key; a throw means failure. `log` carries the reconcileID (silent without a logger). */
export type Handler<K extends string = string> = (key: K, signal: AbortSignal, log: Logger) => Promise<Outcome>;

/** Bookkeeping around each reconcile (the controller's dependent-trigger state); must not throw. */
export interface ReconcileTracker<K extends string = string> {
  /** Before the reconcile starts. */
  began(key: K): void;
  /** Once it settled, before the log line, the metrics and the queue action. */
  settled(key: K, s: Settled): void;
  /** After the log line and the metrics, before the queue action. */
  finished(key: K): void;
}

export interface ReconcileHandlerOptions<K extends string = string> {
  readonly queue: WorkQueue<K>;
  readonly handle: Handler<K>;
  /** Handed to handle() to stop early. */
  readonly signal: AbortSignal;
  /** Each reconcile logs through a child with a fresh reconcileID. @default no log lines */
  readonly logger?: Logger;
  /** @default none */
  readonly metrics?: Pick<ControllerMetrics, 'reconciled' | 'activeWorkers'>;
  /** @default none */
  readonly track?: ReconcileTracker<K>;
  /**
   * Reports a failed handle() after the key was requeued (or, for a TerminalError, forgotten). A throw from it is
   * ignored so that a reporting bug cannot stop a worker. @default none
   */
  readonly onError?: (key: K, err: unknown) => void;
}

export async function reconcileHandler<K extends string>(o: ReconcileHandlerOptions<K>, key: K): Promise<void> {
  const log = o.logger?.child({ reconcileID: randomUUID() });
  const started = performance.now();
  let settled: Settled;
  o.metrics?.activeWorkers(1);
  try {
    o.track?.began(key);
    try {
      settled = { ok: true, outcome: await o.handle(key, o.signal, log ?? silentLogger) };
    } catch (error) {
      settled = { ok: false, error };
    }
    o.track?.settled(key, settled);
    logResult(log, key, settled, started);
    o.metrics?.reconciled(resultLabel(settled), (performance.now() - started) / 1000);
  } finally {
    o.track?.finished(key);
    o.metrics?.activeWorkers(-1);
  }
  applyQueueAction(o.queue, key, settled);
  if (settled.ok) return;
  try {
    o.onError?.(key, settled.error);
  } catch {
    // Reporting must not stop the worker; the error was already acted on above.
  }
}

function logResult(log: Logger | undefined, key: string, s: Settled, started: number): void {
  if (log === undefined) return;
  if (s.ok) {
    log.debug({ key, ms: Math.round(performance.now() - started) }, 'Reconciled');
    return;
  }
  const e = s.error as { message?: string; code?: string };
  log.error(
    { key, ms: Math.round(performance.now() - started), code: e.code, err: errFields(s.error) },
    'Reconciler error',
  );
}

function applyQueueAction<K extends string>(queue: WorkQueue<K>, key: K, s: Settled): void {
  const action = queueAction(s);
  switch (action.kind) {
    case 'forget':
      queue.forget(key);
      return;
    case 'forget-then-add-after':
      queue.forget(key);
      queue.addAfter(key, action.ms);
      return;
    case 'add-after':
      queue.addAfter(key, action.ms);
      return;
    case 'add-rate-limited':
      queue.addRateLimited(key);
  }
}
