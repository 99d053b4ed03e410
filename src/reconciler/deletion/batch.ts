// Uninstall batches: one deletion pass also uninstalls the releases of other CRs being deleted beside it, in its helm
// process (helm takes several names) or in-process beside its own, so that deleting many CRs costs a few helm
// processes, not one each, and is not held to one release per worker at a time. Picks the members (its worker's
// share), claims them while they run, and finishes each one as it is reported gone, exactly as its own pass would.
// Called by deletion.ts; never touches a CR not reported uninstalled (its own pass then retries it alone).

import { errFields } from '../../core/error-fields.js';
import { hasOurFinalizer } from '../../finalizers/finalizers.js';
import type { Release } from '../../helm/types.js';
import { releaseState } from '../../records/release-state.js';
import { releaseOptions } from '../inputs/annotations.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { RunStart } from '../run.js';
import { readStatus, uninstalledStatus } from '../status/status.js';
import { StatusUpdater } from '../status/updater.js';
import type { CustomResource } from '../types.js';

/** Releases one helm process uninstalls at most, the pass's own included. */
export const DEFAULT_UNINSTALL_BATCH = 50;
/** Finished uids remembered at most (see UninstallBatches.#finished). */
const MAX_FINISHED = 4_096;
/** When a CR's own pass comes while a batch holds it: look again this much later (the CR is gone by then). */
export const CLAIMED_REQUEUE_MS = 1_000;

export interface UninstallBatchOptions
  extends Pick<
    HelmReconcilerOptions,
    | 'chartName'
    | 'watch'
    | 'crs'
    | 'releases'
    | 'events'
    | 'inFlight'
    | 'clock'
    | 'deletingCrs'
    | 'uninstallBatch'
    | 'uninstallLanes'
  > {
  /** Drops what the reconciler remembers of a CR once its finalizer is gone. */
  readonly forget: (key: string) => void;
}

/** A CR a batch uninstalls beside the pass's own. */
export interface BatchMember {
  readonly key: string;
  readonly cr: CustomResource;
  /** Its release's newest record, as read when it was picked. */
  readonly newest: Release;
}

/** The key deletion.ts holds a release by in the in-flight set (`ns/name`, `/name` for a cluster-scoped CR). */
const keyOf = (cr: CustomResource) => `${cr.metadata.namespace ?? ''}/${cr.metadata.name}`;

export class UninstallBatches {
  readonly #o: UninstallBatchOptions;
  readonly #claimed = new Set<string>();
  /**
   * The uids of members finished (finalizer removed): the informers may still show them, and their records, for a
   * moment. Dropped once the informers no longer list them as being deleted.
   */
  readonly #finished = new Map<string, string>();
  /**
   * The uids of members a batch stopped at (their uninstall failed inside it): from then on each one's passes run helm
   * for it alone, so that it reports its own error and stops no other batch; no batch picks it. Dropped with #finished.
   */
  readonly #alone = new Map<string, string>();
  /** Releases of the batches now running that helm has not reported gone yet: work the other workers still have. */
  #running = 0;

  constructor(options: UninstallBatchOptions) {
    this.#o = options;
  }

  /** True while a batch of another pass holds `key`: its own pass has nothing to do yet. */
  claimed(key: string): boolean {
    return this.#claimed.has(key);
  }

  /** A pass of its own removed `cr`'s finalizer: remembered as a batch's members are (see finished). */
  finish(cr: CustomResource): void {
    this.#remember(cr, cr.metadata.namespace ?? '');
  }

  /** True when `cr`'s finalizer was removed (by a batch or its own pass): the copy read lags, nothing is left to do. */
  finished(cr: CustomResource): boolean {
    return cr.metadata.uid !== undefined && this.#finished.has(cr.metadata.uid);
  }

  /**
   * The CRs `r`'s pass may uninstall too (in its helm process, or in-process beside it), oldest deletion first: of
   * its namespace, being deleted with our finalizer, a release of this chart on record whose newest record `wants`
   * (the same way of uninstalling as `r`'s), the same hook and timeout options as `r`, no uninstall-wait (its requeue
   * belongs to its own pass), no invalid annotation (its own pass warns about it), no failed uninstall (its own pass
   * retries it on its backoff), none held or in flight.
   */
  async pick(r: RunStart, wants: (newest: Release) => boolean): Promise<BatchMember[]> {
    const cap = this.#o.uninstallBatch ?? DEFAULT_UNINSTALL_BATCH;
    if (cap < 2 || !this.#o.deletingCrs) return [];
    if (this.#alone.has(r.cr.metadata.uid ?? '')) return [];
    const mine = r.annotations.options;
    const listed = this.#o.deletingCrs(r.namespace);
    this.#forgetGone(r.namespace, listed);
    const candidates = listed
      .filter((cr) => {
        const key = keyOf(cr);
        if (this.finished(cr) || this.#alone.has(cr.metadata.uid ?? '')) return false;
        const own = cr.metadata.name === r.name && (cr.metadata.namespace ?? '') === r.namespace;
        if (own || this.#claimed.has(key) || this.#o.inFlight.has(key)) return false;
        if (!cr.metadata.deletionTimestamp || !hasOurFinalizer(cr.metadata.finalizers)) return false;
        if (lastUninstallFailed(cr)) return false; // it goes alone, on its own backoff, and stops no batch
        const o = releaseOptions(cr.metadata.annotations, { helmTimeoutMs: this.#o.watch.helmTimeoutMs });
        return (
          o.warnings.length === 0 &&
          !o.uninstallWait &&
          o.uninstallDisableHooks === mine.uninstallDisableHooks &&
          o.helmTimeoutMs === mine.helmTimeoutMs
        );
      })
      .sort(byDeletion);
    const limit = Math.min(cap, batchShare(candidates.length + 1, this.#running, this.#o.uninstallLanes ?? 1)) - 1;
    const members: BatchMember[] = [];
    for (const cr of candidates) {
      if (members.length >= limit) break;
      const history = await this.#o.releases.history(r.namespace, cr.metadata.name, { signal: r.signal });
      const { state, summary } = releaseState({ history, chart: this.#o.chartName });
      const newest = summary.latest;
      if (!newest || state === 'Unmanaged' || !wants(newest)) continue;
      members.push({ key: keyOf(cr), cr, newest });
    }
    return members;
  }

  /**
   * Runs `uninstall` (one helm process for `r` and `members`, or their in-process uninstalls) with the members held,
   * and finishes each member as it reports its release gone (`onGone`, while it goes on with the others); when it
   * ends, those it reported gone and not yet finished: those it resolves with (all of them when it resolves with
   * nothing), those listed on its error otherwise (none after an abort).
   * They finish while the pass goes on (its worker takes the next CR), each held until finished so that no pass of
   * its own runs helm in between; the others are let go at once.
   */
  async together(
    r: RunStart,
    members: readonly BatchMember[],
    uninstall: (onGone: (release: string) => void) => Promise<readonly string[] | undefined>,
    gone: (err: unknown) => readonly string[],
  ): Promise<void> {
    for (const m of members) this.#hold(m.key);
    const byName = new Map(members.map((m) => [m.cr.metadata.name, m]));
    const reported = new Set<string>();
    const finishing = new Set<string>();
    const finish = (m: BatchMember) => {
      finishing.add(m.cr.metadata.name);
      void this.#finish(r, m).finally(() => this.#release(m.key));
    };
    this.#running += members.length + 1;
    const onGone = (release: string) => {
      if (reported.has(release) || !(byName.has(release) || release === r.name)) return;
      reported.add(release);
      this.#running--;
      const m = byName.get(release);
      if (m && !r.signal.aborted) finish(m);
    };
    let done: readonly string[] = members.map((m) => m.cr.metadata.name);
    let failure: unknown;
    try {
      done = (await uninstall(onGone)) ?? done;
    } catch (err) {
      failure = err;
      done = r.signal.aborted ? [] : gone(err);
      // helm went past the pass's own release and stopped at the first member it did not report gone.
      const stopped = done.includes(r.name) ? members.find((m) => !done.includes(m.cr.metadata.name)) : undefined;
      if (stopped?.cr.metadata.uid !== undefined) this.#alone.set(stopped.cr.metadata.uid, r.namespace);
    } finally {
      this.#running -= members.length + 1 - reported.size;
    }
    if (members.length > 0) r.log.info({ release: r.name, batch: members.length + 1 }, 'Uninstalled together');
    for (const m of members) {
      if (finishing.has(m.cr.metadata.name)) continue;
      if (done.includes(m.cr.metadata.name)) finish(m);
      else this.#release(m.key);
    }
    if (failure !== undefined) throw failure;
  }

  /** Drops the finished and stopped-at uids of `namespace` its deleting CRs no longer include (the informers caught up). */
  #forgetGone(namespace: string, listed: readonly CustomResource[]): void {
    if (this.#finished.size === 0 && this.#alone.size === 0) return;
    const uids = new Set(listed.map((cr) => cr.metadata.uid));
    for (const seen of [this.#finished, this.#alone])
      for (const [uid, ns] of seen) if (ns === namespace && !uids.has(uid)) seen.delete(uid);
  }

  /** Bounded: the oldest goes first (long gone from the informers by then), so a lone delete now and then never leaks. */
  #remember(cr: CustomResource, namespace: string): void {
    if (cr.metadata.uid === undefined) return;
    if (this.#finished.size >= MAX_FINISHED) this.#finished.delete(this.#finished.keys().next().value as string);
    this.#finished.set(cr.metadata.uid, namespace);
  }

  #hold(key: string): void {
    this.#claimed.add(key);
    this.#o.inFlight.add(key);
  }

  #release(key: string): void {
    this.#claimed.delete(key);
    this.#o.inFlight.delete(key);
  }

  /**
   * What the member's own pass does after its uninstall: event, Uninstalled status, finalizer removed, forgotten.
   * Never rejects: what it could not write, the member's own pass writes (it finds the release gone and finishes).
   */
  async #finish(r: RunStart, m: BatchMember): Promise<void> {
    const release = m.cr.metadata.name;
    const log = r.log.child({ name: release, batchOf: r.name });
    try {
      log.info({ release }, 'Uninstalled release');
      this.#o.events.event(m.cr, 'Normal', 'UninstallSucceeded', `Uninstalled release ${release}`);
      const updater = new StatusUpdater({ crs: this.#o.crs, cr: m.cr });
      updater.setStatus(uninstalledStatus(updater.shown, this.#o.clock.now()));
      updater.removeFinalizers();
      await updater.apply(r.signal);
      this.#remember(m.cr, r.namespace);
      this.#o.forget(m.key);
      log.info({ release }, 'Removing finalizer');
    } catch (err) {
      log.warn({ release, err: errFields(err) }, 'Could not finish a CR uninstalled together; its own pass will');
    }
  }
}

/**
 * How many releases a pass's helm takes, its own included: an equal share, over the workers, of those waiting
 * (`waiting`, the pass's own included) and those running batches still hold (`running`: not reported gone yet).
 * Without it the first passes fill their batches and the last worker's helm takes the tail alone while the others
 * idle. Never below 1.
 */
export function batchShare(waiting: number, running: number, lanes: number): number {
  return Math.max(1, Math.ceil((waiting + running) / Math.max(1, lanes)));
}

/** The CR's last uninstall failed (ReleaseFailed, UninstallError): helm would likely stop a batch at it again. */
function lastUninstallFailed(cr: CustomResource): boolean {
  return (readStatus(cr.status).conditions ?? []).some(
    (c) => c.type === 'ReleaseFailed' && c.status === 'True' && c.reason === 'UninstallError',
  );
}

/** Oldest deletion first, then by name: the order the members' own passes would most likely have come in. */
function byDeletion(a: CustomResource, b: CustomResource): number {
  const [x, y] = [a.metadata.deletionTimestamp ?? '', b.metadata.deletionTimestamp ?? ''];
  return x < y ? -1 : x > y ? 1 : a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}
