// Builds the CR status for each reconcile outcome as operator-sdk writes it ({conditions, deployedRelease}, plus our
// fields; unknown status fields are dropped), and compares statuses so that an unchanged one is never written.
// Pure; called by status/draft.ts, start/read.ts and deletion/. Never reads the clock (now is passed in).

import { type ConditionInput, conditions as condition } from '../../conditions/condition-catalogue.js';
import {
  type Condition,
  type ConditionType,
  findCondition,
  removeCondition,
  setCondition,
} from '../../conditions/conditions.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { DeployedRelease, HelmAppStatus, Readiness, StatusWord } from '../types.js';

/** The status fields that record a handled annotation request. */
type HandledRequest = 'lastHandledReconcileAt' | 'lastHandledForceAt';

/** A failure condition from condition-catalogue.ts: releaseFailed(…) or irreconcilable(…). */
export type FailureCondition = ConditionInput & { readonly type: 'ReleaseFailed' | 'Irreconcilable' };

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
          ...(typeof dr.manifest === 'string' ? { manifest: dr.manifest } : {}),
          ...(typeof dr.revision === 'number' ? { revision: dr.revision } : {}),
        }
      : undefined;
  const num = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
  const observedGeneration = num(s.observedGeneration);
  const failures = num(s.failures);
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const lastHandledReconcileAt = str(s.lastHandledReconcileAt);
  const lastHandledForceAt = str(s.lastHandledForceAt);
  const state = typeof s.state === 'string' && STATUS_WORDS.has(s.state) ? (s.state as StatusWord) : undefined;
  return {
    conditions,
    ...(deployedRelease ? { deployedRelease } : {}),
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
    ...(failures ? { failures } : {}),
    ...(lastHandledReconcileAt ? { lastHandledReconcileAt } : {}),
    ...(lastHandledForceAt ? { lastHandledForceAt } : {}),
    ...(state ? { state } : {}),
  };
}

const STATUS_WORDS = new Set<string>([
  'Paused',
  'Irreconcilable',
  'InstallFailed',
  'UpgradeFailed',
  'UninstallFailed',
  'RolloutHeld',
  'HelmRunning',
  'Deployed',
  'Uninstalling',
  'Uninstalled',
  'Pending',
]);

/**
 * The word for `kubectl get`, from the conditions, most urgent first: paused; inputs that cannot be reconciled; a
 * failed install, upgrade or uninstall (even while the last good revision stays Deployed); an upgrade held by the
 * chart rollout; a helm run still going; deployed; uninstalling or uninstalled; else pending.
 */
export function statusWordOf(s: HelmAppStatus): StatusWord {
  const on = (type: ConditionType) => {
    const c = findCondition(s.conditions, type);
    return c?.status === 'True' ? c : undefined;
  };
  if (on('Paused')) return 'Paused';
  if (on('Irreconcilable')) return 'Irreconcilable';
  const failed = on('ReleaseFailed')?.reason;
  if (failed === 'UpgradeError') return 'UpgradeFailed';
  if (failed === 'UninstallError') return 'UninstallFailed';
  if (failed !== undefined) return 'InstallFailed';
  if (on('ChartRollout')) return 'RolloutHeld';
  if (on('Reconciling')) return 'HelmRunning';
  if (on('Deployed')) return 'Deployed';
  const deployed = findCondition(s.conditions, 'Deployed');
  if (deployed?.reason === 'UninstallSuccessful') return s.deployedRelease ? 'Uninstalling' : 'Uninstalled';
  return 'Pending';
}

/** The status with `state` set from its conditions: what every write stores. */
export function withStatusWord(s: HelmAppStatus): HelmAppStatus {
  const state = statusWordOf(s);
  return s.state === state ? s : { ...s, state };
}

export function sameStatus(a: HelmAppStatus, b: HelmAppStatus): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function initialized(conditions: readonly Condition[], now: number): Condition[] {
  return setCondition(conditions, condition.initialized(), now);
}

/**
 * Every status written after helm ends drops Reconciling, which only a helm run still going may show, and
 * ChartRollout, which a held CR's reconcile sets again (rollout/step.ts).
 */
function settled(conditions: readonly Condition[]): Condition[] {
  return removeCondition(removeCondition(conditions, 'Reconciling'), 'ChartRollout');
}

/**
 * While a slow helm run holds a worker: `Reconciling=True/HelmStillRunning` with what runs and for how long (a
 * kstatus-style condition of ours); operator-sdk's four conditions and everything else stay as they are.
 */
export function stillRunningStatus(before: HelmAppStatus, message: string, now: number): HelmAppStatus {
  return { ...before, conditions: setCondition(before.conditions, condition.reconciling(trim(message)), now) };
}

/** After an install or upgrade, or when the release is already as wanted. */
export function deployedStatus(
  before: HelmAppStatus,
  reason: 'InstallSuccessful' | 'UpgradeSuccessful',
  notes: string,
  deployedRelease: DeployedRelease,
  now: number,
): HelmAppStatus {
  let c = initialized(settled(before.conditions), now);
  c = removeCondition(c, 'ReleaseFailed');
  c = removeCondition(c, 'Irreconcilable');
  c = setCondition(c, condition.deployed(reason, trim(notes)), now);
  return { conditions: c, deployedRelease, ...carriedOver(before) };
}

/** The status with `deployedRelease` set to the release deployed now, or without one when none is. */
export function withDeployedRelease(s: HelmAppStatus, deployedRelease: DeployedRelease | undefined): HelmAppStatus {
  const { deployedRelease: _old, ...rest } = s;
  return deployedRelease ? { ...rest, deployedRelease } : rest;
}

/**
 * The ValuesShadowed condition set to `message` (which spec keys shadow values-from keys), or removed when the spec
 * shadows nothing.
 */
export function withShadowing(s: HelmAppStatus, message: string | undefined, now: number): HelmAppStatus {
  const conditions =
    message === undefined
      ? removeCondition(s.conditions, 'ValuesShadowed')
      : setCondition(s.conditions, condition.valuesShadowed(trim(message)), now);
  return conditions === s.conditions ? s : { ...s, conditions };
}

/** The Ready condition set from the release's objects; removed when they are not watched (it would go stale). */
export function withReadiness(s: HelmAppStatus, ready: Readiness | undefined, now: number): HelmAppStatus {
  const conditions = ready
    ? setCondition(s.conditions, condition.ready({ ...readyFields(ready), message: trim(ready.message) }), now)
    : removeCondition(s.conditions, 'Ready');
  return { ...s, conditions };
}

/** The condition's fields of a Readiness (not its recheck hint, which is no status). */
function readyFields({ status, reason, message }: Readiness): Pick<Readiness, 'status' | 'reason' | 'message'> {
  return { status, reason, message };
}

/** What every status keeps from the one before: observedGeneration and the handled requests (requests.ts). */
function carriedOver(s: HelmAppStatus): Pick<HelmAppStatus, 'observedGeneration' | HandledRequest> {
  const { observedGeneration: g, lastHandledReconcileAt: r, lastHandledForceAt: f } = s;
  return {
    ...(g === undefined ? {} : { observedGeneration: g }),
    ...(r === undefined ? {} : { lastHandledReconcileAt: r }),
    ...(f === undefined ? {} : { lastHandledForceAt: f }),
  };
}

/**
 * ReleaseFailed (install/upgrade/uninstall errors) or Irreconcilable (inputs that cannot be reconciled), built by
 * condition-catalogue.ts; counts the failure. The other of the two failure conditions is removed, so exactly one
 * says what is wrong now.
 */
export function failedStatus(before: HelmAppStatus, failure: FailureCondition, now: number): HelmAppStatus {
  let c = initialized(settled(before.conditions), now);
  c = removeCondition(c, failure.type === 'ReleaseFailed' ? 'Irreconcilable' : 'ReleaseFailed');
  c = setCondition(c, { ...failure, message: trim(failure.message ?? '') }, now);
  return { ...before, conditions: c, failures: (before.failures ?? 0) + 1 };
}

/**
 * The status a reconcile of `generation` starts from: the stored one, with a clean failure count when the spec is
 * new (the controller has reset its backoff too), and observedGeneration set to `generation`.
 */
export function startingStatus(stored: HelmAppStatus, generation: number | undefined): HelmAppStatus {
  return {
    ...(stored.observedGeneration === generation ? stored : withoutFailures(stored)),
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

/** The status with the failure counter cleared (a new spec starts counting afresh). */
export function withoutFailures(s: HelmAppStatus): HelmAppStatus {
  const { failures: _dropped, ...rest } = s;
  return rest;
}

/** After a successful uninstall: Deployed=False/UninstallSuccessful and no deployedRelease. */
export function uninstalledStatus(before: HelmAppStatus, now: number, waiting = false): HelmAppStatus {
  let c = removeCondition(settled(before.conditions), 'ReleaseFailed');
  const message = waiting ? 'Waiting until all resources are deleted.' : undefined;
  c = setCondition(c, condition.uninstalled(message), now);
  // While waiting, deployedRelease is kept: its manifest says which objects to wait for.
  const keep = waiting && before.deployedRelease ? { deployedRelease: before.deployedRelease } : {};
  return { conditions: c, ...keep, ...carriedOver(before) };
}
