// The deletion half of a reconcile, operator-sdk style: ask the uninstall queue (the `uninstalls` port) for the CR's
// own release, or, when its records are gone, delete what it left outside the namespace; optionally wait for its
// objects (uninstall-wait), then write its own uninstalled status and event and drop its own finalizer. Built by
// watch-kit.ts, run by reconciler.ts for a CR with a deletionTimestamp; never writes another CR, never uninstalls a
// release of another chart.

import { conditions } from '../../conditions/condition-catalogue.js';
import type { Outcome } from '../../controller/contract.js';
import { RetryLaterError } from '../../core/errors.js';
import { hasOurFinalizer } from '../../finalizers/finalizers.js';
import { HelmCommandError } from '../../helm/errors.js';
import { NotFoundError } from '../../kube/errors.js';
import { outsideObjectsOrNone } from '../../ownership/orphans.js';
import { releaseState, summaryOf } from '../../records/release-state.js';
import type { StoredRelease } from '../../records/types.js';
import { failureMessage } from '../classify.js';
import type { HelmReconcilerOptions } from '../options.js';
import { assertNotInFlight } from '../release/in-flight.js';
import { reconcileHelm } from '../release/reconcile-helm.js';
import { retryAfterFailure } from '../retry.js';
import type { DraftRun, RunStart } from '../run.js';
import { failedStatus, uninstalledStatus } from '../status/status.js';
import { manifestToWaitFor } from '../status/status-manifest.js';
import { StatusUpdater } from '../status/updater.js';
import type { HelmAppStatus, OutsideObjects, UninstallsPort } from '../types.js';
import { company } from './company.js';

/** helm uninstall's words when the release has no records (any more). */
const RELEASE_NOT_FOUND = /release: not found/;

/** How often uninstall-wait looks again while objects of the release remain. */
const WAIT_POLL_MS = 5_000;

export interface ReleaseDeletionOptions
  extends Pick<
    HelmReconcilerOptions,
    | 'chartName'
    | 'crs'
    | 'releases'
    | 'helm'
    | 'events'
    | 'cleanup'
    | 'orphans'
    | 'inFlight'
    | 'releaseBackoff'
    | 'clock'
    | 'watch'
  > {
  /** The uninstall queue: the pass asks it for its own CR's release only. */
  readonly uninstalls: UninstallsPort;
  /** What each CR's release put outside its namespace, remembered by the reconciler while it was deployed. */
  readonly outside: OutsideObjects;
  /** Called with "ns/name" once the finalizer is gone: drops what the reconciler remembers of the CR. */
  readonly forget: (key: string) => void;
}

/** A deletion pass reads the CR, its annotations (uninstall-wait, hooks, timeout, the period) and its log. */
type DeletionRequest = RunStart;

export class ReleaseDeletion {
  readonly #o: ReleaseDeletionOptions;
  /** uninstall-wait: the manifest each deleting CR waits for, kept from the pass that still saw Helm's records. */
  readonly #waitFor = new Map<string, string>();

  constructor(options: ReleaseDeletionOptions) {
    this.#o = options;
  }

  /** Events on `cr`. */
  #note(cr: RunStart['cr']): DraftRun['note'] {
    return (type, reason, message) => this.#o.events.event(cr, type, reason, message);
  }

  /** One deletion pass: `{}` once the finalizer is removed, a requeue while uninstall-wait waits. */
  async reconcile(r: DeletionRequest): Promise<Outcome> {
    const { cr, log, signal } = r;
    if (!hasOurFinalizer(cr.metadata.finalizers)) return {};
    const release = cr.metadata.name;
    const key = `${cr.metadata.namespace ?? ''}/${release}`;
    if (this.#o.uninstalls.finished(cr)) return {}; // its own pass removed its finalizer; this copy of it lags
    const history = await this.#o.releases.history(cr.metadata.namespace ?? '', release, { signal });
    const updater = new StatusUpdater({ crs: this.#o.crs, cr });
    let waiting: Outcome | undefined;
    try {
      waiting = await this.#uninstall(r, updater, history);
      if (!waiting) {
        // Status first: without the finalizer the object may vanish.
        updater.setStatus(uninstalledStatus(updater.shown, this.#o.clock.now()));
        updater.removeFinalizers();
      }
    } catch (err) {
      // Canceled, or the release is busy with another helm operation of this operator (the queue's retry): no failure.
      if (signal.aborted || err instanceof RetryLaterError) throw err;
      const message = failureMessage(err);
      const failure = conditions.releaseFailed('UninstallError', message);
      const failed = failedStatus(updater.shown, failure, this.#o.clock.now());
      updater.setStatus(failed);
      const note = `Uninstall of release ${release} failed: ${message}`;
      updater.afterApply(() => this.#o.events.event(cr, 'Warning', 'UninstallFailed', note));
      throw retryAfterFailure({ key, message, cause: err, failures: failed.failures ?? 1, ...this.#backoff() });
    } finally {
      // A 404: the CR is gone already (this copy lagged behind its own finished pass); nothing is left to write.
      const gone = await updater.apply(signal).then(
        () => false,
        (err: unknown) => {
          if (err instanceof NotFoundError) return true;
          throw err;
        },
      );
      if (gone) log.debug({ release }, 'Custom resource already gone');
    }
    if (waiting) return waiting;
    this.#o.uninstalls.finish(cr); // its informer copy may lag: a later pass of that copy has nothing to do
    this.#o.forget(key);
    this.#waitFor.delete(key);
    log.info({ release }, 'Removing finalizer');
    return {};
  }

  /** Uninstalls (or leaves alone, or cleans up after); with uninstall-wait, the requeue while objects remain. */
  async #uninstall(
    r: DeletionRequest,
    updater: StatusUpdater,
    history: readonly StoredRelease[],
  ): Promise<Outcome | undefined> {
    const { cr, log, signal } = r;
    const { options } = r.annotations;
    const release = cr.metadata.name;
    const ns = cr.metadata.namespace ?? '';
    const key = `${ns}/${release}`;
    const stored = updater.shown;
    const named = releaseState({ history, chart: this.#o.chartName });
    if (named.state === 'Unmanaged') {
      assertNotInFlight(this.#o.inFlight, key);
      const owner = named.summary.latest?.chart.name;
      const message = `Release ${release} belongs to chart ${JSON.stringify(owner)}; left it installed`;
      log.warn({ release, chart: owner }, 'Release of another chart left alone');
      this.#o.events.event(cr, 'Warning', 'ReleaseConflict', message);
    } else if (await this.#uninstallRelease(r, key, updater, history)) {
      log.info({ release }, 'Uninstalled release');
      this.#o.events.event(cr, 'Normal', 'UninstallSucceeded', `Uninstalled release ${release}`);
    } else {
      log.info({ release }, 'Release not found');
      await this.#deleteOrphans(ns, release, stored, log, signal);
    }
    // Helm's records go with the uninstall: later passes of the wait use what the first one saw.
    const manifest = this.#waitFor.get(key) ?? manifestToWaitFor(history, stored.deployedRelease);
    if (!options.uninstallWait || !manifest) return undefined;
    this.#waitFor.set(key, manifest);
    if (!this.#o.cleanup) return undefined;
    updater.setStatus(uninstalledStatus(stored, this.#o.clock.now(), true));
    await updater.apply(signal); // the waiting status shows while the objects go, as in operator-sdk
    log.info({ release }, 'Uninstall wait'); // operator-sdk's line; its e2e test greps for it
    const { remaining } = await this.#o.cleanup(manifest, ns, signal);
    if (remaining.length === 0) return undefined;
    log.info({ release, remaining: remaining.length }, 'Waiting until all resources are deleted');
    return {
      requeueAfterMs: Math.min(r.annotations.periodMs > 0 ? r.annotations.periodMs : WAIT_POLL_MS, WAIT_POLL_MS),
    };
  }

  /**
   * Asks the uninstall queue for the CR's own release: true once it is gone (by this request's job or by another CR's
   * job that took it), false when it had no record left, or helm found none after all: its records went between our
   * read and helm's (a namespace being deleted takes them), which is "already uninstalled", as operator-sdk treats it.
   */
  async #uninstallRelease(
    r: DeletionRequest,
    key: string,
    updater: StatusUpdater,
    history: readonly StoredRelease[],
  ): Promise<boolean> {
    const { cr, signal } = r;
    const { options } = r.annotations;
    const release = cr.metadata.name;
    // The CR's --timeout (uninstall hooks wait too); a slow uninstall shows as an event and Reconciling.
    const run = { ...r, updater, now: () => this.#o.clock.now(), note: this.#note(cr) };
    const helm = reconcileHelm({ helm: this.#o.helm, run, timeoutMs: options.helmTimeoutMs, clock: this.#o.clock });
    const disableHooks = options.uninstallDisableHooks;
    try {
      const outcome = await this.#o.uninstalls.uninstall({
        key,
        uid: cr.metadata.uid,
        namespace: r.namespace,
        release,
        newest: summaryOf(history).latest,
        disableHooks,
        signal,
        log: r.log,
        helm: (also, onUninstalled) =>
          helm.uninstall({
            release,
            namespace: r.namespace,
            disableHooks,
            signal,
            ...(also.length ? { also, onUninstalled } : {}),
          }),
        member: company(this.#o, r),
      });
      return outcome === 'uninstalled';
    } catch (err) {
      const notFound = err instanceof HelmCommandError && RELEASE_NOT_FOUND.test(err.failure.stderr);
      if (notFound && err.failure.release === release) return false;
      throw err;
    }
  }

  /**
   * The release record is gone (its namespace is being deleted, say) but what it put outside the namespace is not:
   * deletes those objects, known from the reconciler's memory of the last revision or else from the status manifest.
   */
  async #deleteOrphans(ns: string, release: string, stored: HelmAppStatus, log: RunStart['log'], signal: AbortSignal) {
    const remembered = this.#o.outside.get(`${ns}/${release}`);
    const refs = remembered ?? outsideObjectsOrNone(stored.deployedRelease?.manifest ?? '', ns);
    if (refs.length === 0 || !this.#o.orphans) return;
    const deleted = await this.#o.orphans(refs, release, ns, signal);
    if (deleted.length === 0) return;
    log.info({ release, deleted: deleted.length }, 'Deleted release objects outside its namespace');
  }

  #backoff() {
    return this.#o.releaseBackoff ? { backoff: this.#o.releaseBackoff } : {};
  }
}
