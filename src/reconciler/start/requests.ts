// On-demand requests made with annotations, Flux's requestedAt/forceAt: `reconcile-requested-at` (reconcile now) and
// `force-upgrade-at` (one helm upgrade even when nothing changed). A value not yet recorded in the status
// (lastHandledReconcileAt, lastHandledForceAt) is pending. Pure; called by start/read.ts and release/step.ts. Never
// calls helm.

import { ANNOTATIONS } from '../inputs/annotation-catalogue.js';
import type { PendingRequests } from '../run.js';
import { readStatus } from '../status/status.js';
import type { CustomResource, HelmAppStatus, ReleaseAction } from '../types.js';
import { isPaused, pausedAnnotation } from './pause.js';

export const RECONCILE_REQUESTED_AT = ANNOTATIONS.reconcileRequestedAt.name;
export const FORCE_UPGRADE_AT = ANNOTATIONS.forceUpgradeAt.name;

export function pendingRequests(
  annotations: Readonly<Record<string, string>> | undefined,
  status: HelmAppStatus,
): PendingRequests {
  const reconcileAt = annotations?.[RECONCILE_REQUESTED_AT];
  const forceAt = annotations?.[FORCE_UPGRADE_AT];
  return {
    ...(reconcileAt && reconcileAt !== status.lastHandledReconcileAt ? { reconcileAt } : {}),
    ...(forceAt && forceAt !== status.lastHandledForceAt ? { forceAt } : {}),
  };
}

/** The status with `handled` recorded (what `handled` leaves out stays as it was). */
export function withHandled(status: HelmAppStatus, handled: PendingRequests): HelmAppStatus {
  return {
    ...status,
    ...(handled.reconcileAt === undefined ? {} : { lastHandledReconcileAt: handled.reconcileAt }),
    ...(handled.forceAt === undefined ? {} : { lastHandledForceAt: handled.forceAt }),
  };
}

/** The reconcile request a reconcile handles by running to its status write, whatever its result (as Flux). */
export function reconcileHandled(pending: PendingRequests): PendingRequests {
  return pending.reconcileAt === undefined ? {} : { reconcileAt: pending.reconcileAt };
}

/**
 * The force request this reconcile's helm step handled: any install or upgrade it ran, forced or not, successful or
 * not (as Flux marks a force request handled once acted on: a failed one is not forced again; a new value is a new
 * request). None when no helm action ran (a failure before it keeps the request pending).
 */
export function forceHandled(pending: PendingRequests, action: ReleaseAction): PendingRequests {
  return pending.forceAt !== undefined && action !== 'none' ? { forceAt: pending.forceAt } : {};
}

/**
 * Whether the CR, as the informer holds it, shows a pause, resume or request its status has not recorded. Such a
 * one-shot decision is taken on the API server's copy: the informer's may lag our own last status write by a watch
 * event, and deciding on it would run a forced upgrade twice or record a pause event twice.
 */
export function awaitsManualAction(cr: CustomResource): boolean {
  const status = readStatus(cr.status);
  const annotations = cr.metadata.annotations;
  if (pausedAnnotation(annotations).value !== isPaused(status)) return true;
  const pending = pendingRequests(annotations, status);
  return pending.reconcileAt !== undefined || pending.forceAt !== undefined;
}
