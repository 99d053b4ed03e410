// The last phase of a reconcile that reached a deployed release: remember what it deployed (status manifest, objects
// outside the namespace), hand the manifest to the dependents port (watches, drift repair, readiness), then set the
// Deployed status with Ready and any chart-rollout hold (and the event of a pod's cause), and say when to come back:
// sooner while a not-ready workload's pods are watched for a cause. Called by reconciler.ts.

import { findCondition } from '../conditions/conditions.js';
import type { Outcome } from '../controller/contract.js';
import type { Inputs } from './inputs/inputs.js';
import { periodicRequeue, recheckRequeue } from './inputs/period.js';
import { hideSecrets } from './inputs/values-from.js';
import type { HelmReconcilerOptions } from './options.js';
import { successReason } from './release/decide.js';
import type { OwnedManifestMemo } from './release/owned-manifest.js';
import type { HelmStep } from './release/step.js';
import { settleRollout } from './rollout/step.js';
import type { ReconcileRun } from './run.js';
import { deployed, notePodCause } from './status/draft.js';
import type { StatusReleaseMemo } from './status/status-manifest.js';
import type { OutsideObjects } from './types.js';

export interface SettleDeps extends Pick<HelmReconcilerOptions, 'dependents' | 'periodJitter'> {
  readonly statusRelease: StatusReleaseMemo;
  readonly podCauseEvents: Map<string, string>;
  readonly outside: OutsideObjects;
  readonly owned: OwnedManifestMemo;
}

/** `step` is undefined for a release of another chart (left untouched): only the periodic requeue. */
export async function settle(
  run: ReconcileRun,
  d: SettleDeps,
  inputs: Inputs,
  step: HelmStep | undefined,
): Promise<Outcome> {
  const { key, namespace, cr, log, signal } = run;
  const requeue = periodicRequeue(run.annotations.periodMs, d.periodJitter);
  if (!step) return requeue;
  const rel = step.result ?? step.summary.deployed;
  if (!rel) throw new Error(`${key}: no release after reconcile`); // unreachable: install or deployed is set
  const release = d.statusRelease.get(key, rel, inputs.secrets, run.updater.shown.deployedRelease);
  d.outside.remember(key, namespace, rel.version, rel.manifest);
  // Watches the manifest's kinds; with no helm action this time, puts back what drifted (in-process, no helm), our
  // ownership marks included (an adopted release's manifest lacks them).
  const manifest = d.dependents ? await d.owned.get(key, cr, rel.version, rel.manifest, signal) : rel.manifest;
  const ready = await d.dependents?.afterDeploy(cr, manifest, step.result !== undefined, { signal, log });
  const reason = successReason(step.action, rel.version);
  const notes = hideSecrets(rel.info.notes ?? '', inputs.secrets);
  const status = deployed(run, step.handled, { reason, notes, release, ready });
  notePodCause(run, status, d.podCauseEvents);
  const since = Date.parse(findCondition(status.conditions, 'Ready')?.lastTransitionTime ?? '');
  const next = ready?.recheck
    ? recheckRequeue(requeue, run.now() - (Number.isNaN(since) ? run.now() : since))
    : requeue;
  return settleRollout(run, { status, hold: step.hold, requeue: next });
}
