// The helm step of a reconcile, as a story: read the release's named state (state.ts), leave one of another chart,
// mark it in flight, recover a Locked release, then install, check a release to adopt (adoption.ts), upgrade (through the chart rollout's
// gate) or do nothing as decide.ts says. A
// failure is recorded in the status draft, with the release deployed after its remediation (a rollback is a new
// revision), and thrown for a retry after the release backoff. Called by reconciler.ts.

import type { RolloutHold } from '../../chart-rollout/gate.js';
import { errFields } from '../../core/error-fields.js';
import type { HistorySummary } from '../../helm/history.js';
import type { Release } from '../../helm/types.js';
import { FINGERPRINT_LABEL, type NamedState, releaseState, unmanagedMessage } from '../../records/release-state.js';
import { failureMessage } from '../classify.js';
import type { ChartDigestMemo } from '../inputs/chart-digest-memo.js';
import type { Inputs } from '../inputs/inputs.js';
import { droppedMessage, type LoadedChartMemo } from '../inputs/loaded-chart.js';
import type { HelmReconcilerOptions } from '../options.js';
import { retryAfterFailure } from '../retry.js';
import { chartDriven, throughRollout } from '../rollout/step.js';
import type { ReconcileRun } from '../run.js';
import { forceHandled, withHandled } from '../start/requests.js';
import { markFailed, markIrreconcilable } from '../status/draft.js';
import { withDeployedRelease } from '../status/status.js';
import type { StatusReleaseMemo } from '../status/status-manifest.js';
import type { HelmAppStatus, ReleaseAction } from '../types.js';
import { type ActionContext, summary } from './action.js';
import { type Adoption, type AdoptionDeps, adoptionStep } from './adoption.js';
import { actionForState, type Decision, failedStepCondition } from './decide.js';
import { assertNotInFlight, whileInFlight } from './in-flight.js';
import { install } from './install.js';
import { reconcileHelm } from './reconcile-helm.js';
import { recoverPending } from './recover.js';
import { actionFailure } from './remediation-error.js';
import { readRelease, type StateDeps } from './state.js';
import { upgrade } from './upgrade.js';

export interface StepDeps
  extends StateDeps,
    AdoptionDeps,
    Pick<
      HelmReconcilerOptions,
      | 'watch'
      | 'helm'
      | 'events'
      | 'clock'
      | 'inFlight'
      | 'postRenderArgs'
      | 'chartRollout'
      | 'releaseBackoff'
      | 'suppressOverrideValues'
    > {
  readonly chartDigest: ChartDigestMemo;
  readonly loadedChart: LoadedChartMemo;
  readonly statusRelease: StatusReleaseMemo;
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
      ctx.log.info({ release: ctx.release, revision: result.version }, 'Installed release');
      return { action, summary, result };
    }
    // A chart-driven upgrade waits for its turn in the chart rollout (chart-rollout/gate.ts); the CR's own never does.
    const { deployed } = summary;
    const digest = () => d.chartDigest.get({ signal: ctx.signal });
    const rollout = { gate: d.chartRollout, key: run.key, force: facts.force, values: ctx.values, digest };
    const stored = named.history.find((h) => h.release === deployed);
    const gated = await throughRollout({ ...rollout, deployed: stored, signal: ctx.signal }, async () => {
      const staged = await withLoadedChart(ctx, run, d);
      overrideEvents(run, d);
      return upgrade(staged, deployed);
    });
    if ('hold' in gated) return { action: 'none', summary, hold: gated.hold };
    const result = gated.value;
    const force = ctx.options.upgradeForce;
    ctx.log.info({ release: ctx.release, revision: result.version, force }, 'Upgraded release');
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

function actionContext(run: ReconcileRun, d: StepDeps, inputs: Inputs): ActionContext {
  const { cr, log, signal } = run;
  const { options } = run.annotations;
  return {
    release: run.name,
    namespace: run.namespace,
    chart: d.watch.chart,
    names: [d.chartName],
    values: inputs.values,
    labels: { [FINGERPRINT_LABEL]: inputs.fingerprint },
    ...(d.postRenderArgs ? { postRenderArgs: d.postRenderArgs(cr) } : {}),
    options,
    // Every helm run gets the CR's --timeout; a slow one shows as an event and Reconciling in the status.
    helm: reconcileHelm({
      helm: d.helm,
      run,
      timeoutMs: options.helmTimeoutMs,
      clock: d.clock,
      secrets: inputs.secrets,
    }),
    releases: d.releases,
    log,
    note: run.note,
    signal,
  };
}

/**
 * Records a failed helm step in the status (Irreconcilable for a chart that no longer renders with these values,
 * else ReleaseFailed) and returns the error to throw: retry after the release backoff; as is when aborted.
 */
function failed(run: ReconcileRun, d: StepDeps, step: { action: ReleaseAction; err: unknown }, base: HelmAppStatus) {
  if (run.signal.aborted) return step.err;
  const message = failureMessage(step.err);
  const failed = markFailed(run, base, failedStepCondition(step.action, actionFailure(step.err), message));
  const backoff = d.releaseBackoff ? { backoff: d.releaseBackoff } : {};
  return retryAfterFailure({ key: run.key, message, cause: step.err, failures: failed.failures ?? 1, ...backoff });
}

/**
 * `base` with status.deployedRelease as Helm's records show it after a failure: the rollback of a failed upgrade is
 * a new deployed revision, and a failed install that was uninstalled leaves none. Unchanged when the records cannot
 * be read (or the reconcile was aborted): the failure is what the status reports then.
 */
async function afterFailure(
  ctx: ActionContext,
  run: ReconcileRun,
  d: StepDeps,
  inputs: Inputs,
  base: HelmAppStatus,
): Promise<HelmAppStatus> {
  if (run.signal.aborted) return base;
  try {
    const { deployed } = await summary(ctx);
    const shown = run.updater.shown.deployedRelease;
    return withDeployedRelease(base, deployed && d.statusRelease.get(run.key, deployed, inputs.secrets, shown));
  } catch (err) {
    run.log.debug({ release: ctx.release, err: errFields(err) }, 'Cannot read the release after its failure');
    return base;
  }
}

/**
 * `ctx` with the chart folder helm's CLI is handed (loaded-chart.ts): a copy without the declared dependencies helm's
 * library does not load, which a DependencyDropped warning names, or the chart itself.
 */
async function withLoadedChart(ctx: ActionContext, run: ReconcileRun, d: StepDeps): Promise<ActionContext> {
  const chart = await d.loadedChart.get({ signal: ctx.signal });
  if (chart.dropped.length > 0) run.note('Warning', 'DependencyDropped', droppedMessage(chart));
  return { ...ctx, chart: chart.path };
}

function overrideEvents(run: ReconcileRun, d: StepDeps): void {
  for (const [k, v] of Object.entries(d.watch.overrideValues)) {
    const shown = d.suppressOverrideValues ? '****' : v;
    const message = `Chart value ${JSON.stringify(k)} overridden to ${JSON.stringify(shown)} by operator's watches.yaml`;
    run.note('Warning', 'OverrideValuesInUse', message);
  }
}
