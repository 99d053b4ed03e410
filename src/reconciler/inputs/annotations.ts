// The CR annotations that shape a release (annotation-catalogue.ts lists every annotation and reads each): the
// period, helm's timeout and operator-sdk's release options, each with its fallback. Pure; called by the
// reconciler. An invalid value never throws: it falls back and reports a warning that names the annotation, so it
// can never block deletion.
import { DEFAULT_HELM_TIMEOUT_MS } from '../../helm/timeout.js';
import type { ReleaseOptions } from '../types.js';
import { ANNOTATIONS, type AnnotationEntry, readAnnotation } from './annotation-catalogue.js';

export const RECONCILE_PERIOD = ANNOTATIONS.reconcilePeriod.name;
export const UPGRADE_FORCE = ANNOTATIONS.upgradeForce.name;
export const ROLLBACK_FORCE = ANNOTATIONS.rollbackForce.name;
export const UNINSTALL_WAIT = ANNOTATIONS.uninstallWait.name;
/** Not an operator-sdk annotation: helm's `--timeout` for this CR's release. */
export const HELM_TIMEOUT = ANNOTATIONS.helmTimeout.name;
export const INSTALL_DISABLE_HOOKS = ANNOTATIONS.installDisableHooks.name;
export const UPGRADE_DISABLE_HOOKS = ANNOTATIONS.upgradeDisableHooks.name;
export const UNINSTALL_DISABLE_HOOKS = ANNOTATIONS.uninstallDisableHooks.name;

export interface Parsed<T> {
  readonly value: T;
  /** Set when the annotation was present but invalid: says which and why. */
  readonly warning?: string;
}

/** Annotation `entry` read from `annotations`, `fallback` when absent or invalid (with the entry's warning). */
export function parsedAnnotation<T>(
  annotations: Readonly<Record<string, string>> | undefined,
  entry: AnnotationEntry<T>,
  fallback: T,
): Parsed<T> {
  const read = readAnnotation(annotations, entry);
  if (read === undefined) return { value: fallback };
  return 'value' in read ? { value: read.value } : { value: fallback, warning: read.warning };
}

/** The requeue period: the CR's reconcile-period annotation if valid, else `fallbackMs` (watch, then flag). */
export function reconcilePeriod(
  annotations: Readonly<Record<string, string>> | undefined,
  fallbackMs: number,
): Parsed<number> {
  return parsedAnnotation(annotations, ANNOTATIONS.reconcilePeriod, fallbackMs);
}

/** helm's `--timeout`: the CR's helm-timeout annotation if valid, else `fallbackMs` (the watch's, then 5m). */
export function helmTimeout(
  annotations: Readonly<Record<string, string>> | undefined,
  fallbackMs: number,
): Parsed<number> {
  return parsedAnnotation(annotations, ANNOTATIONS.helmTimeout, fallbackMs);
}

/** Everything the annotations ask of helm for one CR, with a warning per invalid annotation. */
export interface ReleaseDefaults {
  /** The watch's helmTimeout. @default DEFAULT_HELM_TIMEOUT_MS (helm's own 5m) */
  readonly helmTimeoutMs?: number | undefined;
}

export function releaseOptions(
  annotations: Readonly<Record<string, string>> | undefined,
  defaults: ReleaseDefaults = {},
): ReleaseOptions {
  const warnings: string[] = [];
  const timeout = helmTimeout(annotations, defaults.helmTimeoutMs ?? DEFAULT_HELM_TIMEOUT_MS);
  if (timeout.warning) warnings.push(timeout.warning);
  const read = (entry: AnnotationEntry<boolean>, fallback: boolean) => {
    const r = parsedAnnotation(annotations, entry, fallback);
    if (r.warning) warnings.push(r.warning);
    return r.value;
  };
  const a = ANNOTATIONS;
  return {
    upgradeForce: read(a.upgradeForce, false),
    rollbackForce: read(a.rollbackForce, true),
    uninstallWait: read(a.uninstallWait, false),
    installDisableHooks: read(a.installDisableHooks, false),
    upgradeDisableHooks: read(a.upgradeDisableHooks, false),
    uninstallDisableHooks: read(a.uninstallDisableHooks, false),
    helmTimeoutMs: timeout.value,
    warnings,
  };
}
