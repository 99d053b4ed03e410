// The first phases of a reconcile: read the CR (the informer's copy, or the API server's when a pause, resume or
// request awaits) and parse its annotations once, warning about invalid ones; then, for a CR not being deleted, add
// the finalizer and open the status draft. Called by reconciler.ts; never runs helm.
import { splitKey } from '../../cache/store.js';
import type { Logger } from '../../core/logger.js';
import { reconcilePeriod, releaseOptions } from '../inputs/annotations.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { CrAnnotations, ReconcileRun, RunStart } from '../run.js';
import { startingStatus } from '../status/status.js';
import { StatusUpdater } from '../status/updater.js';
import type { CustomResource } from '../types.js';
import { pausedAnnotation, resumedStatus } from './pause.js';
import { awaitsManualAction, pendingRequests, reconcileHandled, withHandled } from './requests.js';

export type ReadDeps = Pick<
  HelmReconcilerOptions,
  'crs' | 'events' | 'watch' | 'defaultReconcilePeriodMs' | 'chartRollout' | 'clock'
>;

/** The CR of `key` with its annotations, or undefined when it is gone (its rollout place is then forgotten). */
export async function readRun(
  d: ReadDeps,
  key: string,
  signal: AbortSignal,
  logger: Logger,
): Promise<RunStart | undefined> {
  const [namespace, name] = splitKey(key);
  const cr = await readCr(d, namespace, name, signal);
  if (!cr) {
    d.chartRollout?.forget(key);
    return undefined;
  }
  const log = logger.child({ namespace, name });
  return { key, namespace, name, cr, log, signal, annotations: readAnnotations(d, cr, log) };
}

/** The informer's copy of the CR; the API server's when a pause, resume or request awaits (requests.ts). */
async function readCr(d: ReadDeps, namespace: string, name: string, signal: AbortSignal) {
  const cached = await d.crs.get(namespace, name, { signal });
  if (!cached || cached.metadata.deletionTimestamp || !awaitsManualAction(cached)) return cached;
  return d.crs.latest ? d.crs.latest(namespace, name, { signal }) : cached;
}

/** The reconcile period, release options and pause from the CR's annotations; warns about invalid ones. */
function readAnnotations(d: ReadDeps, cr: CustomResource, log: Logger): CrAnnotations {
  const fallback = d.watch.reconcilePeriodMs ?? d.defaultReconcilePeriodMs;
  const period = reconcilePeriod(cr.metadata.annotations, fallback);
  const options = releaseOptions(cr.metadata.annotations, { helmTimeoutMs: d.watch.helmTimeoutMs });
  const paused = pausedAnnotation(cr.metadata.annotations);
  for (const warning of [period.warning, ...options.warnings, paused.warning]) {
    if (warning === undefined) continue;
    log.warn({}, warning);
    d.events.event(cr, 'Warning', 'InvalidAnnotation', warning);
  }
  return { periodMs: period.value, options, paused: paused.value };
}

/**
 * Adds the finalizer (written at once: it must be on the CR before any helm action) and opens the status draft:
 * the stored status without Paused, observedGeneration set (failures reset for a new spec), the reconcile request
 * marked handled whatever the outcome.
 */
export async function beginRun(d: ReadDeps, start: RunStart): Promise<ReconcileRun> {
  const updater = new StatusUpdater({ crs: d.crs, cr: start.cr });
  await updater.addFinalizer(start.signal);
  const cr = updater.cr;
  const requests = pendingRequests(cr.metadata.annotations, updater.shown);
  const started = startingStatus(resumedStatus(updater.shown), cr.metadata.generation);
  return {
    ...start,
    cr,
    updater,
    requests,
    base: withHandled(started, reconcileHandled(requests)),
    now: () => d.clock.now(),
    note: (type, reason, message) => d.events.event(cr, type, reason, message),
  };
}
