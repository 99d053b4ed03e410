// Reconciles one custom resource against its Helm release, operator-sdk style: finalizer first, then install,
// upgrade or nothing, decided in-process from Helm's release records and a fingerprint of the inputs (no helm
// process for an unchanged CR); failures are remediated and retried with per-CR backoff; deletion is deletion.ts.
// Called by the controller's workers with a "namespace/name" key. Never puts values in logs, events or errors.
import { splitKey } from '../cache/store.js';
import { parseOverrides } from '../config/overrides.js';
import { ValuesFromError } from '../config/values-from.js';
import { TerminalError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Release } from '../helm/cli.js';
import { type HistorySummary, isPending, summarize } from '../helm/history.js';
import { conditions } from '../status/condition-catalogue.js';
import { type ActionContext, install, recoverPending, upgrade } from './actions.js';
import { type ReleaseOptions, reconcilePeriod, releaseOptions } from './annotations.js';
import { ChartDigestMemo } from './chart-digest-memo.js';
import type { RolloutHold } from './chart-rollout.js';
import { settleRollout, throughRollout } from './chart-rollout-step.js';
import { failureMessage } from './classify.js';
import { decideReleaseAction, failedStepCondition, type ReleaseAction, successReason } from './decide.js';
import { ReleaseDeletion } from './deletion.js';
import { FINGERPRINT_LABEL, fingerprintLabel, releaseFingerprint } from './fingerprint.js';
import { assertNotInFlight, whileInFlight } from './in-flight.js';
import type { HelmReconcilerOptions } from './options.js';
import { OutsideObjectMemo } from './orphans.js';
import { noteResumed, pausedAnnotation, reconcilePaused, resumedStatus } from './pause.js';
import { periodicRequeue } from './period.js';
import { reconcileHelm } from './reconcile-helm.js';
import { actionFailure } from './remediation-error.js';
import { awaitsManualAction, forceHandled, pendingRequests, reconcileHandled, withHandled } from './requests.js';
import { retryAfterFailure } from './retry.js';
import { deployedStatus, failedStatus, startingStatus, withoutFailures, withReadiness } from './status.js';
import { StatusReleaseMemo } from './status-manifest.js';
import type { CustomResource, HelmAppStatus, Outcome, StoredRelease } from './types.js';
import { StatusUpdater } from './updater.js';
import { validateCustomResource } from './validate.js';
import { type ChartInputs, chartValues, hideSecrets, valuesFromFailure } from './values-from.js';

/** Version of what the post-renderer does to objects: a change re-renders every release once. */
export const OWNERSHIP_RENDER = 'ownership/v1';

/** What the helm step did: the action it decided and its result (none for 'none'), or what it threw. */
type HelmStep =
  | {
      readonly action: ReleaseAction;
      readonly state: HistorySummary;
      readonly result?: Release;
      readonly hold?: RolloutHold;
    }
  | { readonly action: ReleaseAction; readonly err: unknown };

export class HelmReconciler {
  readonly #o: HelmReconcilerOptions;
  readonly #overrides: Record<string, unknown>;
  /** What each CR's release put outside its namespace, for a deletion that finds the release record gone. */
  readonly #outside: OutsideObjectMemo;
  /** status.deployedRelease per CR, built once per revision (redaction and the cap scan the whole manifest). */
  readonly #statusRelease: StatusReleaseMemo;
  readonly #deletion: ReleaseDeletion;
  /** The chart's digest, shared by the reconciles of a few seconds (an idle reconcile reads no chart file). */
  readonly #chartDigest: ChartDigestMemo;

  constructor(options: HelmReconcilerOptions) {
    this.#o = options;
    // Parsed once at construction so that a bad override fails at startup, not at the first reconcile.
    this.#overrides = parseOverrides(options.watch.overrideValues);
    this.#statusRelease = new StatusReleaseMemo(options.statusManifest);
    this.#chartDigest = new ChartDigestMemo({ chartDir: options.watch.chart, clock: options.clock });
    this.#outside = options.outside ?? new OutsideObjectMemo();
    const forget = (key: string) => {
      this.#outside.forget(key);
      this.#statusRelease.forget(key);
    };
    this.#deletion = new ReleaseDeletion({ ...options, outside: this.#outside, forget });
  }

  /** `logger` (with the controller's reconcileID) replaces the constructor's logger for this reconcile. */
  async reconcile(key: string, signal: AbortSignal, logger: Logger = this.#o.logger): Promise<Outcome> {
    const [namespace, name] = splitKey(key);
    const cr = await this.#read(namespace, name, signal);
    if (!cr) {
      this.#o.chartRollout?.forget(key);
      return {};
    }
    const log = logger.child({ namespace, name });
    const { periodMs, options, paused } = this.#annotations(cr, log);
    // Deletion ignores the pause: the finalizer must never strand a CR.
    if (cr.metadata.deletionTimestamp) return this.#deletion.reconcile({ cr, options, periodMs, log, signal });
    const requeue: Outcome = periodicRequeue(periodMs, this.#o.periodJitter);

    const updater = new StatusUpdater({ crs: this.#o.crs, cr });
    await updater.addFinalizer(signal); // before any helm action, and written right away
    const current = updater.cr;
    const { events, clock } = this.#o;
    if (paused) return reconcilePaused({ updater, cr: current, events, log, now: clock.now(), signal });
    noteResumed({ updater, cr: current, events, log });
    const requests = pendingRequests(current.metadata.annotations, updater.shown);
    if (requests.reconcileAt) log.info({ reconcileRequestedAt: requests.reconcileAt }, 'Reconcile requested');
    const started = startingStatus(resumedStatus(updater.shown), current.metadata.generation);
    const base = withHandled(started, reconcileHandled(requests)); // handled by this reconcile, whatever its result
    const irreconcilable = (message: string) => {
      updater.setStatus(failedStatus(base, conditions.irreconcilable(message), this.#o.clock.now()));
      updater.afterApply(() => this.#o.events.event(current, 'Warning', 'ReconcileError', message));
    };
    try {
      const valid = validateCustomResource(current);
      if (!valid.ok) {
        irreconcilable(valid.message);
        throw new TerminalError(`${key}: ${valid.problem}`);
      }
      // values-from references, then the spec, then overrideValues; a reference problem installs nothing.
      const inputs = { cr: current, spec: valid.spec, overrides: this.#overrides, reader: this.#o.references, signal };
      const chart = await chartValues(inputs).catch((err: unknown) => {
        if (!(err instanceof ValuesFromError)) throw err;
        irreconcilable(err.message);
        throw valuesFromFailure(err, { key, failures: (base.failures ?? 0) + 1, backoff: this.#o.releaseBackoff });
      });
      const fingerprint = await this.#fingerprint(chart.values, signal);
      const release = current.metadata.name;
      const history = await this.#o.releases.history(namespace, release, { signal }).catch((err: unknown) => {
        irreconcilable(`cannot read release ${release}: ${failureMessage(err)}`);
        throw err;
      });
      const state = summarize(history.map((h) => h.release));
      const owner = state.latest?.chart.name;
      if (owner !== undefined && owner !== this.#o.chartName) {
        irreconcilable(
          `release ${release} already exists and belongs to chart ${JSON.stringify(owner)}, not ${JSON.stringify(this.#o.chartName)}; it is left untouched`,
        );
        return requeue;
      }

      const ctx = this.#actionContext({ cr: current, namespace, chart, fingerprint, options, updater, log, signal });
      assertNotInFlight(this.#o.inFlight, key);
      const force = requests.forceAt !== undefined;
      const step = await whileInFlight(this.#o.inFlight, key, () =>
        this.#helmStep(ctx, current, { state, history, fingerprint, force }),
      );
      const forced = forceHandled(requests, step.action);
      if (forced.forceAt) log.info({ forceUpgradeAt: forced.forceAt, action: step.action }, 'Force upgrade handled');
      const handled = withHandled(base, forced);
      if ('err' in step) throw this.#failed(step, { key, base: handled, updater, signal });

      const rel = step.result ?? step.state.deployed;
      if (!rel) throw new Error(`${key}: no release after reconcile`); // unreachable: install or deployed is set
      const deployedRelease = this.#statusRelease.get(`${namespace}/${release}`, rel, chart.secrets);
      this.#outside.remember(`${namespace}/${release}`, namespace, rel.version, rel.manifest);
      // Watches the manifest's kinds; with no helm action this time, puts back what drifted (in-process, no helm).
      const ready = await this.#o.dependents?.afterDeploy(current, rel.manifest, step.result !== undefined, {
        signal,
        log,
      });
      const reason = successReason(step.action, rel.version);
      const notes = hideSecrets(rel.info.notes ?? '', chart.secrets);
      const now = this.#o.clock.now();
      const status = withReadiness(
        deployedStatus(withoutFailures(handled), reason, notes, deployedRelease, now),
        ready,
        now,
      );
      return settleRollout({ updater, status, hold: step.hold, cr: current, events, log, now, requeue });
    } finally {
      await updater.apply(signal); // status first, then the finalizer; only what changed
    }
  }

  /** The informer's copy of the CR; the API server's when a pause, resume or request awaits (requests.ts). */
  async #read(namespace: string, name: string, signal: AbortSignal): Promise<CustomResource | undefined> {
    const cached = await this.#o.crs.get(namespace, name, { signal });
    if (!cached || cached.metadata.deletionTimestamp || !awaitsManualAction(cached)) return cached;
    return this.#o.crs.latest ? this.#o.crs.latest(namespace, name, { signal }) : cached;
  }

  /** The reconcile period, release options and pause from the CR's annotations; warns about invalid ones. */
  #annotations(cr: CustomResource, log: Logger): { periodMs: number; options: ReleaseOptions; paused: boolean } {
    const fallback = this.#o.watch.reconcilePeriodMs ?? this.#o.defaultReconcilePeriodMs;
    const period = reconcilePeriod(cr.metadata.annotations, fallback);
    const options = releaseOptions(cr.metadata.annotations, { helmTimeoutMs: this.#o.watch.helmTimeoutMs });
    const paused = pausedAnnotation(cr.metadata.annotations);
    for (const warning of [period.warning, ...options.warnings, paused.warning]) {
      if (warning === undefined) continue;
      log.warn({}, warning);
      this.#o.events.event(cr, 'Warning', 'InvalidAnnotation', warning);
    }
    return { periodMs: period.value, options, paused: paused.value };
  }

  /** The fingerprint label of this reconcile's inputs: the chart's files, the values, the render options. */
  async #fingerprint(values: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<string> {
    const options = {
      dryRunOption: this.#o.watch.dryRunOption ?? '',
      ...(this.#o.postRenderArgs ? { postRender: OWNERSHIP_RENDER } : {}),
    };
    const digest = await this.#chartDigest.get({ signal });
    return fingerprintLabel(releaseFingerprint({ chartDigest: digest, values, options }));
  }

  #actionContext(a: {
    cr: CustomResource;
    namespace: string;
    /** The values, and the strings read from Secrets (values-from) that helm's output never shows. */
    chart: ChartInputs;
    fingerprint: string;
    options: ReleaseOptions;
    updater: StatusUpdater;
    log: Logger;
    signal: AbortSignal;
  }): ActionContext {
    const { cr, updater, log, signal } = a;
    return {
      release: a.cr.metadata.name,
      namespace: a.namespace,
      chart: this.#o.watch.chart,
      names: [this.#o.chartName],
      values: a.chart.values,
      labels: { [FINGERPRINT_LABEL]: a.fingerprint },
      ...(this.#o.postRenderArgs ? { postRenderArgs: this.#o.postRenderArgs(a.cr) } : {}),
      options: a.options,
      // Every helm run gets the CR's --timeout; a slow one shows as an event and Reconciling in the status.
      helm: reconcileHelm({
        ...this.#o,
        cr,
        timeoutMs: a.options.helmTimeoutMs,
        updater,
        log,
        signal,
        secrets: a.chart.secrets,
      }),
      releases: this.#o.releases,
      log: a.log,
      note: (type, reason, message) => this.#o.events.event(a.cr, type, reason, message),
      signal: a.signal,
    };
  }

  /**
   * Recovers a release stuck in pending-* (no helm of ours is on it: the caller holds the in-flight mark), then
   * installs, upgrades or does nothing as decideReleaseAction says. Never throws: a failure is returned.
   */
  async #helmStep(
    ctx: ActionContext,
    cr: CustomResource,
    facts: { state: HistorySummary; history: readonly StoredRelease[]; fingerprint: string; force: boolean },
  ): Promise<HelmStep> {
    let { state } = facts;
    let action: ReleaseAction = 'none';
    try {
      if (state.latest && isPending(state.latest.info.status)) state = await recoverPending(ctx, state);
      action = decideReleaseAction({ ...facts, state });
      if (action === 'none') return { action, state };
      if (action === 'install' || !state.deployed) {
        this.#overrideEvents(cr);
        const result = await install(ctx, state);
        ctx.log.info({ release: ctx.release, revision: result.version }, 'Installed release');
        return { action, state, result };
      }
      // A chart-driven upgrade waits for its turn in the chart rollout (chart-rollout.ts); the CR's own never does.
      const { deployed } = state;
      const digest = () => this.#chartDigest.get({ signal: ctx.signal });
      const key = `${ctx.namespace}/${ctx.release}`;
      const rollout = { gate: this.#o.chartRollout, key, force: facts.force, values: ctx.values, digest };
      const stored = facts.history.find((h) => h.release === deployed);
      const gated = await throughRollout({ ...rollout, deployed: stored, signal: ctx.signal }, () => {
        this.#overrideEvents(cr);
        return upgrade(ctx, deployed);
      });
      if ('hold' in gated) return { action: 'none', state, hold: gated.hold };
      const result = gated.value;
      const force = ctx.options.upgradeForce;
      ctx.log.info({ release: ctx.release, revision: result.version, force }, 'Upgraded release');
      return { action, state, result };
    } catch (err) {
      return { action, err };
    }
  }

  /**
   * Records a failed helm step in the status (Irreconcilable for a chart that no longer renders with these values,
   * else ReleaseFailed) and returns the error to throw: retry after the release backoff; as is when aborted.
   */
  #failed(
    step: { action: ReleaseAction; err: unknown },
    a: { key: string; base: HelmAppStatus; updater: StatusUpdater; signal: AbortSignal },
  ): unknown {
    if (a.signal.aborted) return step.err;
    const message = failureMessage(step.err);
    const condition = failedStepCondition(step.action, actionFailure(step.err), message);
    const failed = failedStatus(a.base, condition, this.#o.clock.now());
    a.updater.setStatus(failed);
    const backoff = this.#o.releaseBackoff ? { backoff: this.#o.releaseBackoff } : {};
    return retryAfterFailure({ key: a.key, message, cause: step.err, failures: failed.failures ?? 1, ...backoff });
  }

  #overrideEvents(cr: CustomResource): void {
    for (const [k, v] of Object.entries(this.#o.watch.overrideValues)) {
      const shown = this.#o.suppressOverrideValues ? '****' : v;
      const message = `Chart value ${JSON.stringify(k)} overridden to ${JSON.stringify(shown)} by operator's watches.yaml`;
      this.#o.events.event(cr, 'Warning', 'OverrideValuesInUse', message);
    }
  }
}
