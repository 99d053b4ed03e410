// The CR annotations the operator honours (all under helm.sdk.operatorframework.io/) and their parsing: Go's
// strconv.ParseBool spellings and Go durations. Pure; called by the reconciler. An invalid value never throws:
// it falls back to the default and reports a warning that names the annotation, so it can never block deletion.
import { parseDuration } from '../config/duration.js';
import { DEFAULT_HELM_TIMEOUT_MS, parseHelmTimeout } from '../helm/timeout.js';

export const ANNOTATION_PREFIX = 'helm.sdk.operatorframework.io/';
export const RECONCILE_PERIOD = `${ANNOTATION_PREFIX}reconcile-period`;
export const UPGRADE_FORCE = `${ANNOTATION_PREFIX}upgrade-force`;
export const ROLLBACK_FORCE = `${ANNOTATION_PREFIX}rollback-force`;
export const UNINSTALL_WAIT = `${ANNOTATION_PREFIX}uninstall-wait`;
/** Not an operator-sdk annotation: helm's `--timeout` for this CR's release. */
export const HELM_TIMEOUT = `${ANNOTATION_PREFIX}helm-timeout`;

export interface Parsed<T> {
  readonly value: T;
  /** Set when the annotation was present but invalid: says which and why. */
  readonly warning?: string;
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool; undefined for anything else. */
export function parseGoBool(text: string): boolean | undefined {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  return undefined;
}

export function boolAnnotation(
  annotations: Readonly<Record<string, string>> | undefined,
  key: string,
  fallback: boolean,
): Parsed<boolean> {
  const raw = annotations?.[key];
  if (raw === undefined || raw === '') return { value: fallback };
  const v = parseGoBool(raw);
  if (v !== undefined) return { value: v };
  return {
    value: fallback,
    warning: `annotation ${key}=${JSON.stringify(raw)} is not a boolean (use true or false); using ${fallback}`,
  };
}

/** The requeue period: the CR's reconcile-period annotation if valid, else `fallbackMs` (watch, then flag). */
export function reconcilePeriod(
  annotations: Readonly<Record<string, string>> | undefined,
  fallbackMs: number,
): Parsed<number> {
  const raw = annotations?.[RECONCILE_PERIOD];
  if (raw === undefined) return { value: fallbackMs };
  try {
    const ms = parseDuration(raw);
    if (ms >= 0) return { value: ms };
  } catch {
    // reported below
  }
  return {
    value: fallbackMs,
    warning: `annotation ${RECONCILE_PERIOD}=${JSON.stringify(raw)} is not a duration (use e.g. "30s" or "5m"); using the default`,
  };
}

/** helm's `--timeout`: the CR's helm-timeout annotation if valid, else `fallbackMs` (the watch's, then 5m). */
export function helmTimeout(
  annotations: Readonly<Record<string, string>> | undefined,
  fallbackMs: number,
): Parsed<number> {
  const raw = annotations?.[HELM_TIMEOUT];
  if (raw === undefined) return { value: fallbackMs };
  try {
    return { value: parseHelmTimeout(raw) };
  } catch {
    const warning = `annotation ${HELM_TIMEOUT}=${JSON.stringify(raw)} is not a duration above zero and at most 24h (use e.g. "90s" or "10m"); using the default`;
    return { value: fallbackMs, warning };
  }
}

export const INSTALL_DISABLE_HOOKS = `${ANNOTATION_PREFIX}install-disable-hooks`;
export const UPGRADE_DISABLE_HOOKS = `${ANNOTATION_PREFIX}upgrade-disable-hooks`;
export const UNINSTALL_DISABLE_HOOKS = `${ANNOTATION_PREFIX}uninstall-disable-hooks`;

/** Everything the annotations ask of helm for one CR, with a warning per invalid annotation. */
export interface ReleaseOptions {
  readonly upgradeForce: boolean;
  readonly rollbackForce: boolean;
  readonly uninstallWait: boolean;
  readonly installDisableHooks: boolean;
  readonly upgradeDisableHooks: boolean;
  readonly uninstallDisableHooks: boolean;
  /** helm's `--timeout` for every helm run of this CR (annotation, else the watch's, else 5m). */
  readonly helmTimeoutMs: number;
  readonly warnings: readonly string[];
}

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
  const read = (key: string, fallback: boolean) => {
    const r = boolAnnotation(annotations, key, fallback);
    if (r.warning) warnings.push(r.warning);
    return r.value;
  };
  return {
    upgradeForce: read(UPGRADE_FORCE, false),
    rollbackForce: read(ROLLBACK_FORCE, true),
    uninstallWait: read(UNINSTALL_WAIT, false),
    installDisableHooks: read(INSTALL_DISABLE_HOOKS, false),
    upgradeDisableHooks: read(UPGRADE_DISABLE_HOOKS, false),
    uninstallDisableHooks: read(UNINSTALL_DISABLE_HOOKS, false),
    helmTimeoutMs: timeout.value,
    warnings,
  };
}
