// The `helm.sdk.operatorframework.io/paused` annotation: whether a CR is paused, its Paused condition, and the
// reconcile of a paused CR, which writes that condition (with an event when it pauses) and nothing else: no helm,
// no drift repair, no requeue. Called by HelmReconciler after the finalizer; deletion never looks at the pause.

import type { Logger } from '../core/logger.js';
import { conditions } from '../status/condition-catalogue.js';
import { findCondition, removeCondition, setCondition } from '../status/conditions.js';
import { ANNOTATIONS } from './annotation-catalogue.js';
import { type Parsed, parsedAnnotation } from './annotations.js';
import type { CustomResource, EventSink, HelmAppStatus, Outcome } from './types.js';
import type { StatusUpdater } from './updater.js';

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

export interface PauseContext {
  readonly updater: StatusUpdater;
  /** The CR as the updater holds it (finalizer added). */
  readonly cr: CustomResource;
  readonly events: EventSink;
  readonly log: Logger;
  readonly now: number;
  readonly signal: AbortSignal;
}

/**
 * One reconcile of a paused CR: writes Paused (only when it is not there yet) and, the first time, the
 * ReconcilePaused event. No requeue: resuming is an annotation change, which reconciles the CR by itself.
 */
export async function reconcilePaused(o: PauseContext): Promise<Outcome> {
  const { updater } = o;
  if (isPaused(updater.shown)) {
    o.log.debug({ annotation: PAUSED }, 'Reconcile paused: nothing done');
    return {};
  }
  updater.setStatus(pausedStatus(updater.shown, o.now));
  updater.afterApply(() => {
    o.log.info({ annotation: PAUSED }, 'Reconcile paused');
    o.events.event(o.cr, 'Normal', 'ReconcilePaused', PAUSED_MESSAGE);
  });
  await updater.apply(o.signal);
  return {};
}

/**
 * On the first reconcile after a pause (its status still shows Paused): the ReconcileResumed event, once the status
 * without Paused is written. A reconcile that writes no status leaves Paused shown and the event to the next one.
 */
export function noteResumed(o: Omit<PauseContext, 'now' | 'signal'>): void {
  if (!isPaused(o.updater.shown)) return;
  o.updater.afterApply(() => {
    if (isPaused(o.updater.shown)) return;
    o.log.info({ annotation: PAUSED }, 'Reconcile resumed');
    o.events.event(o.cr, 'Normal', 'ReconcileResumed', RESUMED_MESSAGE);
  });
}
