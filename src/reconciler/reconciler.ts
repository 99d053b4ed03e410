// Reconciles one custom resource against its Helm release, operator-sdk style: finalizer first, then install,
// upgrade or nothing, decided in-process from Helm's release records and a fingerprint of the inputs (no helm
// process for an unchanged CR); on deletion uninstall, write status, then drop the finalizer.
// Called by the controller's workers with a "namespace/name" key. Never puts values in logs or errors.
import { deepMerge, parseOverrides } from '../config/overrides.js';
import type { Watch } from '../config/watches.js';
import type { Clock } from '../core/clock.js';
import { TerminalError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { hasOurFinalizer, withFinalizer, withoutFinalizers } from '../finalizers/finalizers.js';
import type { HelmClient, HelmReleaseResult } from '../helm/cli.js';
import { summarize } from '../helm/history.js';
import { reconcilePeriod } from './annotations.js';
import { chartDigest, releaseFingerprint } from './fingerprint.js';
import { deployedStatus, failedStatus, readStatus, sameStatus, uninstalledStatus } from './status.js';
import type { CrAccess, CustomResource, HelmAppStatus, ReleaseReader } from './types.js';

/** Label on Helm's release record holding the fingerprint of the inputs that produced it. */
export const FINGERPRINT_LABEL = 'helm.sdk.operatorframework.io/fingerprint';

export interface HelmReconcilerOptions {
  readonly watch: Watch;
  /** The --reconcile-period flag, used when neither the CR annotation nor the watch sets one. */
  readonly defaultReconcilePeriodMs: number;
  readonly crs: CrAccess;
  readonly releases: ReleaseReader;
  readonly helm: HelmClient;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface Outcome {
  readonly requeueAfterMs?: number;
}

export class HelmReconciler {
  readonly #o: HelmReconcilerOptions;
  readonly #overrides: Record<string, unknown>;

  constructor(options: HelmReconcilerOptions) {
    this.#o = options;
    // Parsed once at construction so that a bad override fails at startup, not at the first reconcile.
    this.#overrides = parseOverrides(options.watch.overrideValues);
  }

  async reconcile(key: string, signal: AbortSignal): Promise<Outcome> {
    const [namespace = '', name = ''] = key.includes('/') ? key.split('/', 2) : ['', key];
    const cr = await this.#o.crs.get(namespace, name, { signal });
    if (!cr) return {};
    const log = this.#o.logger.child({ namespace, name });
    const period = reconcilePeriod(
      cr.metadata.annotations,
      this.#o.watch.reconcilePeriodMs ?? this.#o.defaultReconcilePeriodMs,
    );
    if (period.warning) log.warn({ annotation: 'reconcile-period' }, period.warning);
    const requeue: Outcome = period.value > 0 ? { requeueAfterMs: period.value } : {};

    if (cr.metadata.deletionTimestamp) return this.#delete(cr, log, signal);

    let current = cr;
    const finalizers = withFinalizer(cr.metadata.finalizers);
    if (finalizers) current = await this.#o.crs.setFinalizers(cr, finalizers, { signal });

    const release = cr.metadata.name;
    const ns = cr.metadata.namespace ?? '';
    const before = readStatus(current.status);
    const spec = current.spec ?? {};
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
      const status = failedStatus(
        before,
        'Irreconcilable',
        'ReconcileError',
        'spec must be an object (the chart values)',
        this.#now(),
      );
      await this.#write(current, before, status, signal);
      throw new TerminalError(`${key}: spec is not an object`);
    }
    const values = deepMerge(spec as Record<string, unknown>, this.#overrides);
    const fingerprint = fingerprintLabel(
      releaseFingerprint({
        chartDigest: await chartDigest(this.#o.watch.chart, { signal }),
        values,
        options: { dryRunOption: this.#o.watch.dryRunOption ?? '' },
      }),
    );

    const history = await this.#o.releases.history(ns, release, { signal });
    const state = summarize(history.map((h) => h.release));
    const deployed = history.find((h) => h.release === state.deployed);
    const labels = { [FINGERPRINT_LABEL]: fingerprint };

    let result: HelmReleaseResult | undefined;
    let reason: 'InstallSuccessful' | 'UpgradeSuccessful';
    try {
      if (!state.deployed) {
        if (state.latest) {
          // A release with no deployed revision (e.g. a failed install) is removed so the install starts clean.
          log.info({ release, status: state.latest.info.status }, 'Removing release without a deployed revision');
          await this.#o.helm.uninstall({ release, namespace: ns, signal });
        }
        result = await this.#o.helm.install({
          release,
          namespace: ns,
          chart: this.#o.watch.chart,
          values,
          labels,
          signal,
        });
        reason = 'InstallSuccessful';
        log.info({ release, revision: result.version }, 'Installed release');
      } else if (deployed?.labels[FINGERPRINT_LABEL] !== fingerprint || state.latest !== state.deployed) {
        result = await this.#o.helm.upgrade({
          release,
          namespace: ns,
          chart: this.#o.watch.chart,
          values,
          labels,
          signal,
        });
        reason = 'UpgradeSuccessful';
        log.info({ release, revision: result.version }, 'Upgraded release');
      } else {
        reason = state.deployed.version === 1 ? 'InstallSuccessful' : 'UpgradeSuccessful';
      }
    } catch (err) {
      const failedReason = state.deployed ? 'UpgradeError' : 'InstallError';
      const message = err instanceof Error ? err.message : String(err);
      await this.#write(
        current,
        before,
        failedStatus(before, 'ReleaseFailed', failedReason, message, this.#now()),
        signal,
      );
      throw err;
    }
    const rel = result ?? state.deployed;
    if (!rel) throw new Error(`${key}: no release after reconcile`); // unreachable: install or deployed is set
    const status = deployedStatus(
      before,
      reason,
      rel.info.notes ?? '',
      { name: release, manifest: rel.manifest, revision: rel.version },
      this.#now(),
    );
    await this.#write(current, before, status, signal);
    return requeue;
  }

  async #delete(cr: CustomResource, log: Logger, signal: AbortSignal): Promise<Outcome> {
    if (!hasOurFinalizer(cr.metadata.finalizers)) return {};
    const release = cr.metadata.name;
    const ns = cr.metadata.namespace ?? '';
    const before = readStatus(cr.status);
    const history = await this.#o.releases.history(ns, release, { signal });
    if (history.length > 0) {
      try {
        await this.#o.helm.uninstall({ release, namespace: ns, signal });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await this.#write(
          cr,
          before,
          failedStatus(before, 'ReleaseFailed', 'UninstallError', message, this.#now()),
          signal,
        );
        throw err;
      }
      log.info({ release }, 'Uninstalled release');
    } else {
      log.info({ release }, 'Release not found');
    }
    // Status first: once the finalizer is gone the object may vanish and a status write would fail.
    const updated = await this.#write(cr, before, uninstalledStatus(before, this.#now()), signal);
    const remaining = withoutFinalizers(updated.metadata.finalizers);
    if (remaining) await this.#o.crs.setFinalizers(updated, remaining, { signal });
    log.info({ release }, 'Removed finalizer');
    return {};
  }

  async #write(cr: CustomResource, before: HelmAppStatus, after: HelmAppStatus, signal: AbortSignal) {
    if (sameStatus(before, after) && cr.status !== undefined) return cr;
    return this.#o.crs.writeStatus(cr, after, { signal });
  }

  #now(): number {
    return this.#o.clock.now();
  }
}

/** A label value (at most 63 characters of [a-z0-9]) from a `sha256:<hex>` fingerprint. */
export function fingerprintLabel(fingerprint: string): string {
  return fingerprint.replace(/^sha256:/, '').slice(0, 63);
}
