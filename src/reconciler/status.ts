// Builds the CR status for each reconcile outcome, exactly as operator-sdk writes it ({conditions, deployedRelease};
// unknown status fields are dropped), and compares statuses so that an unchanged one is never written.
// Pure; called by the reconciler. Never reads the clock (now is passed in).
import { type Condition, type ConditionReason, removeCondition, setCondition } from '../status/conditions.js';
import { canonicalJson } from './fingerprint.js';
import type { DeployedRelease, HelmAppStatus } from './types.js';

/** Helm NOTES can be long; a condition message is for humans and `kubectl describe`. */
const MAX_MESSAGE = 4096;

function trim(message: string): string {
  const m = message.trim();
  return m.length > MAX_MESSAGE ? `${m.slice(0, MAX_MESSAGE - 15)}… (truncated)` : m;
}

function isCondition(c: unknown): c is Condition {
  if (typeof c !== 'object' || c === null) return false;
  const o = c as Record<string, unknown>;
  return typeof o.type === 'string' && typeof o.status === 'string' && typeof o.lastTransitionTime === 'string';
}

/** The operator's part of whatever is in `.status` (anything malformed is dropped). */
export function readStatus(raw: unknown): HelmAppStatus {
  const s = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const conditions = Array.isArray(s.conditions) ? s.conditions.filter(isCondition) : [];
  const dr = s.deployedRelease as { name?: unknown; manifest?: unknown; revision?: unknown } | undefined;
  const deployedRelease: DeployedRelease | undefined =
    dr && typeof dr.name === 'string'
      ? {
          name: dr.name,
          manifest: typeof dr.manifest === 'string' ? dr.manifest : '',
          ...(typeof dr.revision === 'number' ? { revision: dr.revision } : {}),
        }
      : undefined;
  return { conditions, ...(deployedRelease ? { deployedRelease } : {}) };
}

export function sameStatus(a: HelmAppStatus, b: HelmAppStatus): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function initialized(conditions: readonly Condition[], now: number): Condition[] {
  return setCondition(conditions, { type: 'Initialized', status: 'True' }, now);
}

/** After an install or upgrade, or when the release is already as wanted. */
export function deployedStatus(
  before: HelmAppStatus,
  reason: 'InstallSuccessful' | 'UpgradeSuccessful',
  notes: string,
  deployedRelease: DeployedRelease,
  now: number,
): HelmAppStatus {
  let c = initialized(before.conditions, now);
  c = removeCondition(c, 'ReleaseFailed');
  c = removeCondition(c, 'Irreconcilable');
  const message = trim(notes);
  c = setCondition(c, { type: 'Deployed', status: 'True', reason, ...(message ? { message } : {}) }, now);
  return { conditions: c, deployedRelease };
}

/** ReleaseFailed (install/upgrade/uninstall errors) or Irreconcilable (inputs that cannot be reconciled). */
export function failedStatus(
  before: HelmAppStatus,
  type: 'ReleaseFailed' | 'Irreconcilable',
  reason: ConditionReason,
  message: string,
  now: number,
): HelmAppStatus {
  const c = setCondition(
    initialized(before.conditions, now),
    { type, status: 'True', reason, message: trim(message) },
    now,
  );
  return { ...before, conditions: c };
}

/** After a successful uninstall: Deployed=False/UninstallSuccessful and no deployedRelease. */
export function uninstalledStatus(before: HelmAppStatus, now: number): HelmAppStatus {
  let c = removeCondition(before.conditions, 'ReleaseFailed');
  c = setCondition(c, { type: 'Deployed', status: 'False', reason: 'UninstallSuccessful' }, now);
  return { conditions: c };
}
