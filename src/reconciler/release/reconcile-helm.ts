// The helm client of one reconcile, the one place its per-reconcile middlewares are ordered: the CR's Secret values
// hidden from helm's words (outermost, so that every message below is scrubbed), then the CR's helm timeout with its
// slow-run notice, then the process-wide client (manager/process-helm.ts). Built by the reconciler and the deletion
// flow. Pure composition.
import { chain, type HelmMiddleware } from '../../helm/middleware.js';
import type { HelmClient } from '../../helm/types.js';
import { secretsHidden } from '../inputs/values-from.js';
import { crSlowHelm, type ReleaseHelmOptions } from './slow-helm.js';

export interface ReconcileHelmOptions extends ReleaseHelmOptions {
  /** Strings read from Secrets (values-from) that helm's output must never show. @default none */
  readonly secrets?: readonly string[];
}

/** The per-reconcile middlewares, outermost first. */
export function reconcileMiddlewares(o: Omit<ReconcileHelmOptions, 'helm'>): HelmMiddleware[] {
  return [secretsHidden(o.secrets ?? []), crSlowHelm(o)];
}

/** `o.helm` (the process-wide client) with the per-reconcile middlewares around it. */
export function reconcileHelm(o: ReconcileHelmOptions): HelmClient {
  return chain(o.helm, reconcileMiddlewares(o));
}
