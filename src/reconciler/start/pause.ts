// The `helm.sdk.operatorframework.io/paused` annotation: whether a CR is paused, its Paused condition, and the
// reconcile of a paused CR, which writes that condition (with an event when it pauses) and nothing else: no helm,
// no drift repair, no requeue. Called by reconciler.ts after the finalizer; deletion never looks at the pause.

import { conditions } from '../../conditions/condition-catalogue.js';
import { findCondition, removeCondition, setCondition } from '../../conditions/conditions.js';
import type { Outcome } from '../../controller/contract.js';
import { ANNOTATIONS } from '../inputs/annotation-catalogue.js';
import { type Parsed, parsedAnnotation } from '../inputs/annotations.js';
import type { ReconcileRun } from '../run.js';
import type { HelmAppStatus } from '../types.js';

export const PAUSED = ANNOTATIONS.paused.name;

/** The Paused condition's message, also the ReconcilePaused event's. */
export const PAUSED_MESSAGE = `Reconciliation is paused by the annotation ${PAUSED}: no helm and no drift repair until it is removed or "false"`;
export const RESUMED_MESSAGE = `Reconciliation resumed: the annotation ${PAUSED} is gone or "false"`;

/** Whether the CR asks to be paused (Go's ParseBool; an invalid value warns and means not paused). */
export function pausedAnnotation(annotations: Readonly<Record<string, string>> | undefined): Parsed<boolean> {
  return parsedAnnotation(annotations, ANNOTATIONS.paused, false);
}

/** Whether the status says the CR is paused: what decides the pause and resume events, once each. */
export function isPaused(s: HelmAppStatus): boolean {
  return findCondition(s.conditions, 'Paused')?.status === 'True';
}

/** The last status as it was, plus Paused=True/PausedByAnnotation (observedGeneration stays: nothing was observed). */
export function pausedStatus(before: HelmAppStatus, now: number): HelmAppStatus {
  return { ...before, conditions: setCondition(before.conditions, conditions.paused(PAUSED_MESSAGE), now) };
}

/** The status without the Paused condition (the same object when it has none). */
export function resumedStatus(before: HelmAppStatus): HelmAppStatus {
  if (findCondition(before.conditions, 'Paused') === undefined) return before;
  return { ...before, conditions: removeCondition(before.conditions, 'Paused') };
}

/**
 * One reconcile of a paused CR: writes Paused (only when it is not there yet) and, the first time, the
 * ReconcilePaused event. No requeue: resuming is an annotation change, which reconciles the CR by itself.
 */
export async function reconcilePaused(run: ReconcileRun): Promise<Outcome> {
  const { updater } = run;
  if (isPaused(updater.shown)) {
    run.log.debug({ annotation: PAUSED }, 'Reconcile paused: nothing done');
    return {};
  }
  updater.setStatus(pausedStatus(updater.shown, run.now()));
  updater.afterApply(() => {
    run.log.info({ annotation: PAUSED }, 'Reconcile paused');
    run.note('Normal', 'ReconcilePaused', PAUSED_MESSAGE);
  });
  await updater.apply(run.signal);
  return {};
}

/**
 * On the first reconcile after a pause (its status still shows Paused): the ReconcileResumed event, once the status
 * without Paused is written. A reconcile that writes no status leaves Paused shown and the event to the next one.
 */
export function noteResumed(run: ReconcileRun): void {
  if (!isPaused(run.updater.shown)) return;
  run.updater.afterApply(() => {
    if (isPaused(run.updater.shown)) return;
    run.log.info({ annotation: PAUSED }, 'Reconcile resumed');
    run.note('Normal', 'ReconcileResumed', RESUMED_MESSAGE);
  });
}
