// Reconciles one custom resource against its Helm release, operator-sdk style: finalizer first, then install,
// upgrade or nothing, decided in-process from Helm's release records and a fingerprint of the inputs (no helm
// process for an unchanged CR); failures are remediated and retried with per-CR backoff; on deletion uninstall,
// optionally wait for the objects, write status, then drop the finalizer.
// Called by the controller's workers with a "namespace/name" key. Never puts values in logs, events or errors.
import { deepMerge, parseOverrides } from '../config/overrides.js';
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import { RetryLaterError, TerminalError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { hasOurFinalizer, withFinalizer, withoutFinalizers } from '../finalizers/finalizers.js';
import type { HelmClient, HelmReleaseResult } from '../helm/cli.js';
import { isPending, summarize } from '../helm/history.js';
import { type ActionContext, install, recoverPending, upgrade } from './actions.js';
import { type ReleaseOptions, reconcilePeriod, releaseOptions } from './annotations.js';
import { type BackoffPolicy, failureMessage, isRenderError, releaseRetryDelay } from './classify.js';
import { chartDigest, releaseFingerprint } from './fingerprint.js';
import { OutsideObjectMemo, type OutsideRef, outsideObjectsOrNone } from './orphans.js';
import { deployedStatus, failedStatus, readStatus, sameStatus, uninstalledStatus, withoutFailures } from './status.js';
import { manifestToWaitFor, type StatusManifestMode, StatusReleaseMemo } from './status-manifest.js';
import type { CrAccess, CustomResource, DependentsPort, EventSink, HelmAppStatus, ReleaseReader } from './types.js';

/** Label on Helm's release record holding the fingerprint of the inputs that produced it. */
export const FINGERPRINT_LABEL = 'helm.sdk.operatorframework.io/fingerprint';
/** Helm's limit on release names (chartutil.ValidateReleaseName). */
export const MAX_RELEASE_NAME = 53;

/** Removes the objects of an uninstalled release that still exist; returns those not gone yet. */
export type Cleanup = (manifest: string, namespace: string, signal: AbortSignal) => Promise<{ remaining: unknown[] }>;

export interface HelmReconcilerOptions {
  readonly watch: Watch;
  /** The `name` in the chart's Chart.yaml: a release of another chart under the CR's name is left alone. */
  readonly chartName: string;
  /** The --reconcile-period flag, used when neither the CR annotation nor the watch sets one. */
  readonly defaultReconcilePeriodMs: number;
  readonly crs: CrAccess;
  readonly releases: ReleaseReader;
  readonly helm: HelmClient;
  readonly events: EventSink;
  /** uninstall-wait support. @default none: the annotation is then reported as unsupported */
  readonly cleanup?: Cleanup;
  /** Releases ("ns/name") with a helm process of this operator running; shared by all reconcilers. */
  readonly inFlight: Set<string>;
  /** Mask override values in OverrideValuesInUse events. @default false */
  readonly suppressOverrideValues?: boolean;
  /** --status-manifest: what status.deployedRelease.manifest holds (always capped). @default 'redacted' */
  readonly statusManifest?: StatusManifestMode;
  /** @default 10 s doubling to 15 min */
  readonly releaseBackoff?: BackoffPolicy;
  /**
   * The post-renderer's per-call arguments for a CR (ownership of what the chart renders); also part of the
   * release fingerprint, so releases rendered without it are upgraded once. @default no post-renderer
   */
  readonly postRenderArgs?: (cr: CustomResource) => readonly string[];
  /** Deletes what a release left outside its namespace when its record is gone (see orphans.ts). @default none */
  readonly orphans?: (
    refs: readonly OutsideRef[],
    release: string,
    namespace: string,
    signal: AbortSignal,
  ) => Promise<readonly OutsideRef[]>;
  /** Dependent watches and drift repair for deployed releases. @default none */
  readonly dependents?: DependentsPort;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Version of what the post-renderer does to objects: a change re-renders every release once. */
export const OWNERSHIP_RENDER = 'ownership/v1';

export interface Outcome {
  readonly requeueAfterMs?: number;
}

export class HelmReconciler {
  readonly #o: HelmReconcilerOptions;
  readonly #overrides: Record<string, unknown>;
  /** What each CR's release put outside its namespace, for a deletion that finds the release record gone. */
  readonly #outside = new OutsideObjectMemo();
  /** status.deployedRelease per CR, built once per revision (redaction and the cap scan the whole manifest). */
  readonly #statusRelease: StatusReleaseMemo;
  /** uninstall-wait: the manifest each deleting CR waits for, kept from the pass that still saw Helm's records. */
  readonly #waitFor = new Map<string, string>();

  constructor(options: HelmReconcilerOptions) {
    this.#o = options;
    // Parsed once at construction so that a bad override fails at startup, not at the first reconcile.
    this.#overrides = parseOverrides(options.watch.overrideValues);
    this.#statusRelease = new StatusReleaseMemo(options.statusManifest);
  }

  /** `logger` (with the controller's reconcileID) replaces the constructor's logger for this reconcile. */
  async reconcile(key: string, signal: AbortSignal, logger: Logger = this.#o.logger): Promise<Outcome> {
    const [namespace = '', name = ''] = key.includes('/') ? key.split('/', 2) : ['', key];
    const cr = await this.#o.crs.get(namespace, name, { signal });
    if (!cr) return {};
    const log = logger.child({ namespace, name });
    const fallback = this.#o.watch.reconcilePeriodMs ?? this.#o.defaultReconcilePeriodMs;
    const period = reconcilePeriod(cr.metadata.annotations, fallback);
    const options = releaseOptions(cr.metadata.annotations);
    for (const warning of [...(period.warning ? [period.warning] : []), ...options.warnings]) {
      log.warn({}, warning);
      this.#o.events.event(cr, 'Warning', 'InvalidAnnotation', warning);
    }
    const requeue: Outcome = period.value > 0 ? { requeueAfterMs: period.value } : {};
    if (cr.metadata.deletionTimestamp) return this.#delete(cr, options, period.value, log, signal);

    const finalizers = withFinalizer(cr.metadata.finalizers);
    const current = finalizers ? await this.#o.crs.setFinalizers(cr, finalizers, { signal }) : cr;
    const stored = readStatus(current.status);
    const generation = current.metadata.generation;
    // A new spec starts with a clean failure count (and the controller has already reset its backoff).
    const base: HelmAppStatus = {
      ...(stored.observedGeneration === generation ? stored : withoutFailures(stored)),
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
    const write = (after: HelmAppStatus) => this.#write(current, stored, after, signal);
    const irreconcilable = async (message: string) => {
      await write(failedStatus(base, 'Irreconcilable', 'ReconcileError', message, this.#now()));
      this.#o.events.event(current, 'Warning', 'ReconcileError', message);
    };

    const release = current.metadata.name;
    if (release.length > MAX_RELEASE_NAME) {
      await irreconcilable(
        `release name ${JSON.stringify(release)} is ${release.length} characters; Helm allows at most ${MAX_RELEASE_NAME}: use a shorter name for the custom resource`,
      );
      throw new TerminalError(`${key}: name too long for a Helm release`);
    }
    const spec = current.spec ?? {};
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
      await irreconcilable('spec must be an object (the chart values)');
      throw new TerminalError(`${key}: spec is not an object`);
    }
    const values = deepMerge(spec as Record<string, unknown>, this.#overrides);
    const labels = {
      [FINGERPRINT_LABEL]: fingerprintLabel(
        releaseFingerprint({
          chartDigest: await chartDigest(this.#o.watch.chart, { signal }),
          values,
          options: {
            dryRunOption: this.#o.watch.dryRunOption ?? '',
            ...(this.#o.postRenderArgs ? { postRender: OWNERSHIP_RENDER } : {}),
          },
        }),
      ),
    };

    let history: Awaited<ReturnType<ReleaseReader['history']>>;
    try {
      history = await this.#o.releases.history(namespace, release, { signal });
    } catch (err) {
      await irreconcilable(`cannot read release ${release}: ${failureMessage(err)}`);
      throw err;
    }
    let state = summarize(history.map((h) => h.release));
    const owner = state.latest?.chart.name;
    if (owner !== undefined && owner !== this.#o.chartName) {
      await irreconcilable(
        `release ${release} already exists and belongs to chart ${JSON.stringify(owner)}, not ${JSON.stringify(this.#o.chartName)}; it is left untouched`,
      );
      return requeue;
    }

    const ctx: ActionContext = {
      release,
      namespace,
      chart: this.#o.watch.chart,
      values,
      labels,
      ...(this.#o.postRenderArgs ? { postRenderArgs: this.#o.postRenderArgs(current) } : {}),
      options,
      helm: this.#o.helm,
      releases: this.#o.releases,
      log,
      note: (type, reason, message) => this.#o.events.event(current, type, reason, message),
      signal,
    };
    if (this.#o.inFlight.has(key)) {
      // Another reconciler of this operator (a second kind with the same name and chart) is running helm on it.
      throw new RetryLaterError(`${key}: another helm operation of this operator is running on the release`, 5_000);
    }
    let result: HelmReleaseResult | undefined;
    let action = 'none' as 'install' | 'upgrade' | 'none';
    try {
      result = await this.#guard(key, async () => {
        if (state.latest && isPending(state.latest.info.status)) state = await recoverPending(ctx, state);
        const deployed = history.find((h) => h.release === state.deployed);
        if (!state.deployed) {
          action = 'install';
          this.#overrideEvents(current);
          const r = await install(ctx, state);
          log.info({ release, revision: r.version }, 'Installed release');
          return r;
        }
        if (deployed?.labels[FINGERPRINT_LABEL] !== labels[FINGERPRINT_LABEL] || state.latest !== state.deployed) {
          action = 'upgrade';
          this.#overrideEvents(current);
          const r = await upgrade(ctx, state.deployed);
          log.info({ release, revision: r.version, force: options.upgradeForce }, 'Upgraded release');
          return r;
        }
        return undefined;
      });
    } catch (err) {
      if (signal.aborted) throw err;
      const message = failureMessage(err);
      const reason = action === 'upgrade' ? 'UpgradeError' : 'InstallError';
      const failed = isRenderError(err)
        ? failedStatus(base, 'Irreconcilable', 'ReconcileError', message, this.#now())
        : failedStatus(base, 'ReleaseFailed', reason, message, this.#now());
      await write(failed);
      const delay = releaseRetryDelay(failed.failures ?? 1, this.#o.releaseBackoff);
      throw new RetryLaterError(`${key}: ${message}`, delay, { cause: err, ...codeOf(err) });
    }
    const rel = result ?? state.deployed;
    if (!rel) throw new Error(`${key}: no release after reconcile`); // unreachable: install or deployed is set
    const reason = result
      ? action === 'install'
        ? 'InstallSuccessful'
        : 'UpgradeSuccessful'
      : rel.version === 1
        ? 'InstallSuccessful'
        : 'UpgradeSuccessful';
    const deployedRelease = this.#statusRelease.get(`${namespace}/${release}`, rel);
    this.#outside.remember(`${namespace}/${release}`, namespace, rel.version, rel.manifest);
    // Watches the manifest's kinds; with no helm action this time, puts back what drifted (in-process, no helm).
    await this.#o.dependents?.afterDeploy(current, rel.manifest, result !== undefined, { signal, log });
    await write(deployedStatus(withoutFailures(base), reason, rel.info.notes ?? '', deployedRelease, this.#now()));
    return requeue;
  }

  async #delete(cr: CustomResource, options: ReleaseOptions, periodMs: number, log: Logger, signal: AbortSignal) {
    if (!hasOurFinalizer(cr.metadata.finalizers)) return {};
    const release = cr.metadata.name;
    const ns = cr.metadata.namespace ?? '';
    const stored = readStatus(cr.status);
    const key = `${ns}/${release}`;
    const history = await this.#o.releases.history(ns, release, { signal });
    const owner = summarize(history.map((h) => h.release)).latest?.chart.name;
    if (this.#o.inFlight.has(key)) {
      throw new RetryLaterError(`${key}: another helm operation of this operator is running on the release`, 5_000);
    }
    // What the CR shows right now; the uninstall-wait path writes a waiting status first.
    let shown = { cr, status: stored };
    try {
      if (owner !== undefined && owner !== this.#o.chartName) {
        const message = `Release ${release} belongs to chart ${JSON.stringify(owner)}; left it installed`;
        log.warn({ release, chart: owner }, 'Release of another chart left alone');
        this.#o.events.event(cr, 'Warning', 'ReleaseConflict', message);
      } else if (history.length > 0) {
        await this.#guard(key, () =>
          this.#o.helm.uninstall({ release, namespace: ns, disableHooks: options.uninstallDisableHooks, signal }),
        );
        log.info({ release }, 'Uninstalled release');
        this.#o.events.event(cr, 'Normal', 'UninstallSucceeded', `Uninstalled release ${release}`);
      } else {
        log.info({ release }, 'Release not found');
        await this.#deleteOrphans(ns, release, stored, log, signal);
      }
      // Helm's records go with the uninstall: later passes of the wait use what the first one saw.
      const manifest = this.#waitFor.get(key) ?? manifestToWaitFor(history, stored.deployedRelease);
      if (options.uninstallWait && manifest) this.#waitFor.set(key, manifest);
      if (options.uninstallWait && manifest && this.#o.cleanup) {
        const waiting = uninstalledStatus(stored, this.#now(), true);
        shown = { cr: await this.#write(cr, stored, waiting, signal), status: waiting };
        log.info({ release }, 'Uninstall wait'); // operator-sdk's line; its e2e test greps for it
        const { remaining } = await this.#o.cleanup(manifest, ns, signal);
        if (remaining.length > 0) {
          log.info({ release, remaining: remaining.length }, 'Waiting until all resources are deleted');
          return { requeueAfterMs: Math.min(periodMs > 0 ? periodMs : 5_000, 5_000) };
        }
        return this.#release(shown.cr, waiting, log, signal);
      }
    } catch (err) {
      if (signal.aborted) throw err;
      const message = failureMessage(err);
      const failed = failedStatus(shown.status, 'ReleaseFailed', 'UninstallError', message, this.#now());
      await this.#write(shown.cr, shown.status, failed, signal);
      this.#o.events.event(cr, 'Warning', 'UninstallFailed', `Uninstall of release ${release} failed: ${message}`);
      const delay = releaseRetryDelay(failed.failures ?? 1, this.#o.releaseBackoff);
      throw new RetryLaterError(`${key}: ${message}`, delay, { cause: err, ...codeOf(err) });
    }
    return this.#release(cr, stored, log, signal);
  }

  /** Writes the final uninstalled status, then removes our finalizers (status first: the object may vanish). */
  async #release(cr: CustomResource, stored: HelmAppStatus, log: Logger, signal: AbortSignal): Promise<Outcome> {
    const updated = await this.#write(cr, stored, uninstalledStatus(stored, this.#now()), signal);
    const remaining = withoutFinalizers(updated.metadata.finalizers);
    if (remaining) await this.#o.crs.setFinalizers(updated, remaining, { signal });
    this.#outside.forget(`${cr.metadata.namespace ?? ''}/${cr.metadata.name}`);
    this.#statusRelease.forget(`${cr.metadata.namespace ?? ''}/${cr.metadata.name}`);
    this.#waitFor.delete(`${cr.metadata.namespace ?? ''}/${cr.metadata.name}`);
    log.info({ release: cr.metadata.name }, 'Removing finalizer');
    return {};
  }

  /**
   * The release record is gone (its namespace is being deleted, say) but what it put outside the namespace is not:
   * deletes those objects, known from this operator's memory of the last revision or else from the status manifest.
   */
  async #deleteOrphans(ns: string, release: string, stored: HelmAppStatus, log: Logger, signal: AbortSignal) {
    const remembered = this.#outside.get(`${ns}/${release}`);
    const refs = remembered ?? outsideObjectsOrNone(stored.deployedRelease?.manifest ?? '', ns);
    if (refs.length === 0 || !this.#o.orphans) return;
    const deleted = await this.#o.orphans(refs, release, ns, signal);
    if (deleted.length === 0) return;
    log.info({ release, deleted: deleted.length }, 'Deleted release objects outside its namespace');
  }

  /** Marks the release as worked on by this operator while `fn` runs (stuck-release detection reads it). */
  async #guard<T>(key: string, fn: () => Promise<T>): Promise<T> {
    this.#o.inFlight.add(key);
    try {
      return await fn();
    } finally {
      this.#o.inFlight.delete(key);
    }
  }

  #overrideEvents(cr: CustomResource): void {
    for (const [k, v] of Object.entries(this.#o.watch.overrideValues)) {
      const shown = this.#o.suppressOverrideValues ? '****' : v;
      const message = `Chart value ${JSON.stringify(k)} overridden to ${JSON.stringify(shown)} by operator's watches.yaml`;
      this.#o.events.event(cr, 'Warning', 'OverrideValuesInUse', message);
    }
  }

  async #write(cr: CustomResource, before: HelmAppStatus, after: HelmAppStatus, signal: AbortSignal) {
    if (sameStatus(before, after) && cr.status !== undefined) return cr;
    return this.#o.crs.writeStatus(cr, after, { signal });
  }

  #now(): number {
    return this.#o.clock.now();
  }
}

/** The failure's own code, so that logs and metrics show e.g. HELM_COMMAND_FAILED rather than RETRY_LATER. */
function codeOf(err: unknown): { code?: string } {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? { code } : {};
}

/** A label value (at most 63 characters of [a-z0-9]) from a `sha256:<hex>` fingerprint. */
export function fingerprintLabel(fingerprint: string): string {
  return fingerprint.replace(/^sha256:/, '').slice(0, 63);
}
