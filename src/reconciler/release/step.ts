// The helm step of a reconcile, as a story: read the release's named state (state.ts), leave one of another chart,
// mark it in flight, recover a Locked release, then install, check a release to adopt (adoption.ts), upgrade (through the chart rollout's
// gate) or do nothing as decide.ts says. What an action runs with is action-context.ts'; a failure is recorded by
// step-failure.ts and thrown for a retry after the release backoff. Called by reconciler.ts.

import type { RolloutHold } from '../../chart-rollout/gate.js';
import type { HistorySummary } from '../../helm/history.js';
import type { Release } from '../../helm/types.js';
import { type NamedState, releaseState, unmanagedMessage } from '../../records/release-state.js';
import type { ChartDigestMemo } from '../inputs/chart-digest-memo.js';
import type { Inputs } from '../inputs/inputs.js';
import type { HelmReconcilerOptions } from '../options.js';
import { chartDriven, throughRollout } from '../rollout/step.js';
import type { ReconcileRun } from '../run.js';
import { forceHandled, withHandled } from '../start/requests.js';
import { markIrreconcilable } from '../status/draft.js';
import type { HelmAppStatus, ReleaseAction } from '../types.js';
import type { ActionContext } from './action.js';
import { actionContext, type ContextDeps, overrideEvents, withLoadedChart } from './action-context.js';
import { type Adoption, type AdoptionDeps, adoptionStep } from './adoption.js';
import { actionForState, type Decision } from './decide.js';
import { assertNotInFlight, whileInFlight } from './in-flight.js';
import { install } from './install.js';
import { recoverPending } from './recover.js';
import { readRelease, type StateDeps } from './state.js';
import { afterFailure, type FailureDeps, failed } from './step-failure.js';
import { upgrade } from './upgrade.js';

export interface StepDeps
  extends StateDeps,
    AdoptionDeps,
    ContextDeps,
    FailureDeps,
    Pick<HelmReconcilerOptions, 'events' | 'inFlight' | 'chartRollout'> {
  readonly chartDigest: ChartDigestMemo;
}

/** What the helm step did: the action, the records' summary it acted on, its result (none for 'none'), a rollout hold. */
export interface HelmStep {
  readonly action: ReleaseAction;
  readonly summary: HistorySummary;
  readonly result?: Release;
  readonly hold?: RolloutHold;
  /** The run's base status with the requests this step handled (force-upgrade-at once an action ran). */
  readonly handled: HelmAppStatus;
}

/**
 * The helm step; undefined when the release belongs to another chart (left alone, the CR Irreconcilable) or waits
 * for its adoption check (adoption.ts: the CR is woken when it is done).
 */
export async function releaseStep(run: ReconcileRun, d: StepDeps, inputs: Inputs): Promise<HelmStep | undefined> {
  const named = await readRelease(run, d, inputs.fingerprint);
  const force = run.requests.forceAt !== undefined;
  if (actionForState(named.state, force) === 'leave') {
    markIrreconcilable(run, unmanagedMessage(run.name, named, d.chartName));
    return undefined;
  }
  const ctx = actionContext(run, d, inputs);
  assertNotInFlight(d.inFlight, run.key);
  const step = await whileInFlight(d.inFlight, run.key, () => helmStep(ctx, run, d, { named, inputs, force }));
  if ('pending' in step) return undefined;
  const forced = forceHandled(run.requests, step.action);
  if (forced.forceAt) run.log.info({ forceUpgradeAt: forced.forceAt, action: step.action }, 'Force upgrade handled');
  const handled = withHandled(run.base, forced);
  if ('err' in step) throw failed(run, d, step, await afterFailure(ctx, run, d, inputs, handled));
  return { ...step, handled };
}

/** What one attempt of the helm step did: the action on the release, or the action that failed. */
type Attempt =
  | {
      readonly action: ReleaseAction;
      readonly summary: HistorySummary;
      readonly result?: Release;
      readonly hold?: RolloutHold;
      /** An adoption check runs in the background: nothing to settle until it wakes the CR. */
      readonly pending?: true;
    }
  | { readonly action: ReleaseAction; readonly err: unknown };

/**
 * Recovers a Locked release (no helm of ours is on it: the caller holds the in-flight mark) and names its state again,
 * then installs, upgrades or does nothing as actionForState says. Never throws: a failure is returned.
 */
async function helmStep(
  ctx: ActionContext,
  run: ReconcileRun,
  d: StepDeps,
  facts: { named: NamedState; inputs: Inputs; force: boolean },
): Promise<Attempt> {
  let { named } = facts;
  let action: ReleaseAction = 'none';
  try {
    let decision: Decision = actionForState(named.state, facts.force);
    if (decision === 'recover') {
      const recovered = await recoverPending(ctx, named.summary);
      const { history } = named;
      named = releaseState({ history, chart: d.chartName, fingerprint: facts.inputs.fingerprint, recovered });
      decision = actionForState(named.state, facts.force);
    }
    const summary = named.summary;
    if (decision === 'recover' || decision === 'leave') throw new Error(`${run.key}: ${named.state} after recovery`); // unreachable
    if (decision === 'check') {
      const adoption = await checkToAdopt(ctx, run, d, { named, inputs: facts.inputs });
      if (adoption === 'pending') return { action, summary, pending: true };
      if (adoption !== 'upgrade') return { action, summary };
    }
    action = decision === 'check' ? 'upgrade' : decision;
    if (action === 'none') return { action, summary };
    if (action === 'install' || !summary.deployed) {
      const staged = await withLoadedChart(ctx, run, d);
      overrideEvents(run, d);
      const result = await install(staged, summary);
      ctx.run.log.info({ release: ctx.run.name, revision: result.version }, 'Installed release');
      return { action, summary, result };
    }
    // A chart-driven upgrade waits for its turn in the chart rollout (chart-rollout/gate.ts); the CR's own never does.
    const { deployed } = summary;
    const digest = () => d.chartDigest.get({ signal: ctx.run.signal });
    const rollout = { gate: d.chartRollout, key: run.key, force: facts.force, values: ctx.values, digest };
    const stored = named.history.find((h) => h.release === deployed);
    const gated = await throughRollout({ ...rollout, deployed: stored, signal: ctx.run.signal }, async () => {
      const staged = await withLoadedChart(ctx, run, d);
      overrideEvents(run, d);
      return upgrade(staged, deployed);
    });
    if ('hold' in gated) return { action: 'none', summary, hold: gated.hold };
    const result = gated.value;
    const force = ctx.run.annotations.options.upgradeForce;
    ctx.run.log.info({ release: ctx.run.name, revision: result.version, force }, 'Upgraded release');
    return { action, summary, result };
  } catch (err) {
    return { action, err };
  }
}

/**
 * The adoption check of an Unadopted release: in the background (bounded, the worker freed) when the CR's values are
 * those the release was made with, the usual case after a switch from operator-sdk; in this reconcile when they
 * differ, a real change that must not wait behind the others' checks.
 */
function checkToAdopt(
  ctx: ActionContext,
  run: ReconcileRun,
  d: StepDeps,
  facts: { named: NamedState; inputs: Inputs },
): Promise<Adoption> {
  const stored = facts.named.history.find((h) => h.release === facts.named.summary.deployed);
  if (!stored) throw new Error(`${run.key}: no deployed record to adopt`); // unreachable: Unadopted has one
  const inline = !chartDriven({ deployed: stored, values: ctx.values, force: false });
  const { fingerprint, secrets } = facts.inputs;
  return adoptionStep(ctx, run, d, { deployed: stored, fingerprint, secrets, inline });
}
