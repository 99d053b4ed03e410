// The uninstall queue below the reconciler: a CR's deletion pass asks it for that CR's own release only; the queue
// starts it at once, with the deleting CRs it can see (its worker's share) in the same helm process or in-process
// lanes, and hands each of those its outcome when its own pass asks. Built per watch by uninstallQueue(); called by
// the reconciler's deletion phase through its `uninstalls` port. Its state is private; it never writes a CR.
import { RetryLaterError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { HelmCommandError } from '../helm/errors.js';
import type { Release } from '../helm/types.js';
import { type LaneOutcome, laneFields, runLanes } from './lanes.js';
import { type Held, QueueJob } from './queue-job.js';
import { batchShare, byDeletion, type DeletingObject, keyOf, untilAborted } from './share.js';
import type { Uninstaller } from './uninstaller.js';

/** Releases one job (one helm process, or one set of in-process lanes) takes at most, the asking CR's own included. */
const DEFAULT_UNINSTALL_BATCH = 50; // as --max-uninstall-batch defaults (cmd/flags/flags.ts)
/** A release another reconciler of this operator is running helm on: ask again this much later. */
export const HELD_RETRY_MS = 5_000;
/** Finished and go-alone uids remembered at most; the oldest goes first. */
const MAX_REMEMBERED = 4_096;

/** A deletion pass's request: its own CR's release, and how to run helm and judge company for it. */
export interface QueueRequest<C extends DeletingObject = DeletingObject> {
  /** `ns/name` (`/name` for a cluster-scoped CR): the release's key in the in-flight set. */
  readonly key: string;
  readonly uid: string | undefined;
  readonly namespace: string;
  readonly release: string;
  /** The release's newest record as the pass read it; undefined when it has none. */
  readonly newest: Release | undefined;
  readonly disableHooks: boolean;
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** `helm uninstall` of the release, then of `also` in order, calling `onUninstalled` as helm reports each gone. */
  helm(also: readonly string[], onUninstalled: (release: string) => void): Promise<void>;
  /** The newest record of a deleting CR that may go in the same job (same options, no failure), else undefined. */
  member(cr: C, signal: AbortSignal): Promise<Release | undefined>;
}

/** The asking CR's release: uninstalled (by its job, or by another CR's), or it had no record left. */
export type QueueResult = 'uninstalled' | 'not-found';

export interface UninstallQueueOptions<C extends DeletingObject> {
  /** Uninstalls without a helm process what it takes. @default none: every uninstall runs helm */
  readonly uninstaller?: Pick<Uninstaller, 'uninstall' | 'takes'> | undefined;
  /** The CRs of a namespace being deleted that this replica reconciles. @default none: each release alone */
  readonly deleting?: ((namespace: string) => readonly C[]) | undefined;
  /** Releases one job takes at most (1: each alone). @default DEFAULT_UNINSTALL_BATCH */
  readonly batch?: number | undefined;
  /** The controller's workers: a job takes its worker's share of the releases being deleted. @default 1 */
  readonly lanes?: number | undefined;
  /** Releases with a helm process (or an uninstall) of this operator running; shared by all reconcilers. */
  readonly inFlight?: Set<string> | undefined;
  /** In-process uninstalls one job runs at once. @default lanes.ts' IN_PROCESS_PARALLEL */
  readonly parallel?: number | undefined;
}

/** A CR taken into another CR's job. */
interface Member<C> {
  readonly key: string;
  readonly cr: C;
  readonly newest: Release;
  readonly held: Held;
}

export class UninstallQueue<C extends DeletingObject = DeletingObject> {
  readonly #o: UninstallQueueOptions<C>;
  readonly #inFlight: Set<string>;
  /** Members by key: held by a running job, or done and not yet asked for by their own pass. */
  readonly #held = new Map<string, Held>();
  /** uids a helm job stopped at: each goes alone from then on and joins no job. */
  readonly #alone = new Map<string, string>();
  /** uids whose own pass removed the finalizer: a lagging copy of the CR has nothing left to do. */
  readonly #finished = new Map<string, string>();
  /** uids whose release a request was answered gone: no job takes them (their pass is writing its finalizer). */
  readonly #answered = new Map<string, string>();
  /** Releases of running jobs not done yet: work the other workers still have. */
  #running = 0;

  constructor(options: UninstallQueueOptions<C> = {}) {
    this.#o = options;
    this.#inFlight = options.inFlight ?? new Set();
  }

  /** Uninstalls the asking CR's release, or answers what a job of another CR's did to it. */
  async uninstall(r: QueueRequest<C>): Promise<QueueResult> {
    const held = this.#held.get(r.key);
    if (held && held.uid === r.uid && QueueJob.takeBack(this.#held, this.#inFlight, held)) {
      r.log.debug({ release: r.release }, 'Taken back from a job that had not begun it');
    } else if (held && (held.uid === r.uid || held.settled)) {
      // A settled outcome of another uid is an earlier CR's of the same name: dropped, never given to this one.
      const outcome = held.uid === r.uid ? await untilAborted(held.outcome, r.signal) : 'alone';
      if (this.#held.get(r.key) === held) this.#held.delete(r.key);
      if (outcome !== 'alone') {
        r.log.debug({ release: r.release, outcome }, 'Uninstalled with another release');
        return this.#answer(r, outcome);
      }
    }
    if (this.#inFlight.has(r.key)) {
      const message = `${r.key}: another helm operation of this operator is running on the release`;
      throw new RetryLaterError(message, HELD_RETRY_MS);
    }
    if (!r.newest) return 'not-found';
    const uninstaller = this.#o.uninstaller;
    if (uninstaller?.takes(r.newest, r.disableHooks)) {
      const own = await this.#inProcess(r, r.newest, uninstaller);
      if (own !== undefined) return this.#answer(r, own);
    }
    return this.#answer(r, await this.#helm(r));
  }

  #answer(r: QueueRequest<C>, result: QueueResult): QueueResult {
    if (r.uid !== undefined)
      remember(this.#answered, { metadata: { name: r.release, namespace: r.namespace, uid: r.uid } });
    return result;
  }

  /** The CR's own pass removed its finalizer. */
  finish(cr: DeletingObject): void {
    remember(this.#finished, cr);
  }

  /** True once the CR's own pass removed its finalizer: a copy still showing it lags. */
  finished(cr: DeletingObject): boolean {
    return cr.metadata.uid !== undefined && this.#finished.has(cr.metadata.uid);
  }

  /** The in-process lanes; undefined when the uninstaller declines the asking CR's own release (helm takes it). */
  async #inProcess(
    r: QueueRequest<C>,
    newest: Release,
    uninstaller: Pick<Uninstaller, 'uninstall' | 'takes'>,
  ): Promise<QueueResult | undefined> {
    const members = await this.#pickHolding(r, (n) => uninstaller.takes(n, r.disableHooks));
    const job = this.#start(r, members);
    let resolveOwn: (o: LaneOutcome) => void = () => undefined;
    const own = new Promise<LaneOutcome>((resolve) => {
      resolveOwn = resolve;
    });
    const lanes = runLanes({
      uninstaller,
      releases: [newest, ...members.map((m) => m.newest)],
      namespace: r.namespace,
      disableHooks: r.disableHooks,
      signal: r.signal,
      log: r.log,
      ...(this.#o.parallel === undefined ? {} : { parallel: this.#o.parallel }),
      skip: (i) => i > 0 && (members[i - 1] as Member<C>).held.settled,
      onStart: (i) => {
        if (i > 0) QueueJob.begin((members[i - 1] as Member<C>).held);
      },
      onOutcome: (i, outcome) => {
        if (i === 0) {
          job.ownDone();
          return resolveOwn(outcome);
        }
        const m = members[i - 1] as Member<C>;
        const done = outcome === 'uninstalled' || outcome === 'not-found';
        if (!done) r.log.debug({ release: m.cr.metadata.name, ...laneFields(outcome) }, 'Left to its own pass');
        job.settle(m.held, done ? outcome : 'alone');
      },
    });
    // The lanes go on after the asking pass has its answer: its worker takes the next CR meanwhile.
    void lanes.then(() => job.end());
    const outcome = await own;
    if (typeof outcome === 'object' && 'error' in outcome) throw outcome.error;
    if (typeof outcome === 'object') {
      r.log.debug({ release: r.release, reason: outcome.declined }, 'Uninstalling with helm');
      return undefined;
    }
    if (outcome === 'uninstalled') r.log.debug({ release: r.release }, 'Uninstalled without helm');
    return outcome;
  }

  /**
   * One `helm uninstall` of the asking CR's release and its members; each member is settled as helm reports it gone.
   * When helm stops at a member (its failure), that one goes alone from then on; the rest ask again themselves.
   */
  async #helm(r: QueueRequest<C>): Promise<QueueResult> {
    const uninstaller = this.#o.uninstaller;
    const members = await this.#pickHolding(r, (n) => !uninstaller?.takes(n, r.disableHooks));
    const job = this.#start(r, members);
    for (const m of members) QueueJob.begin(m.held); // helm has every name from its start
    const byName = new Map(members.map((m) => [m.cr.metadata.name, m]));
    let ownGone = false;
    const onUninstalled = (release: string) => {
      if (release === r.release) {
        ownGone = true;
        job.ownGone();
      }
      const m = byName.get(release);
      if (m) job.settle(m.held, 'uninstalled');
    };
    try {
      await r.helm(
        members.map((m) => m.cr.metadata.name),
        onUninstalled,
      );
      for (const m of members) job.settle(m.held, 'uninstalled');
      return 'uninstalled';
    } catch (err) {
      const gone = err instanceof HelmCommandError ? (err.failure.uninstalled ?? []) : [];
      if (!r.signal.aborted) for (const release of gone) onUninstalled(release);
      if (!ownGone) throw err;
      const stopped = members.find((m) => !m.held.settled);
      if (stopped) remember(this.#alone, stopped.cr);
      return 'uninstalled'; // a member failed: its own pass runs it alone and reports it
    } finally {
      job.ownDone();
      job.end();
    }
  }

  /** #pick with the asking CR's own key held meanwhile, so that no other job takes it as a member while it picks. */
  async #pickHolding(r: QueueRequest<C>, wants: (newest: Release) => boolean): Promise<Member<C>[]> {
    this.#inFlight.add(r.key);
    try {
      return await this.#pick(r, wants);
    } catch (err) {
      this.#inFlight.delete(r.key);
      throw err;
    }
  }

  /**
   * The deleting CRs `r`'s job takes, oldest deletion first: none held, in flight, finished or going alone, each
   * one `r.member` accepts and whose newest record `wants` (the same way of uninstalling), up to the worker's share.
   * Each is held from the moment it is looked at, so that no other job takes it meanwhile.
   */
  async #pick(r: QueueRequest<C>, wants: (newest: Release) => boolean): Promise<Member<C>[]> {
    const cap = this.#o.batch ?? DEFAULT_UNINSTALL_BATCH;
    if (cap < 2 || !this.#o.deleting || (r.uid !== undefined && this.#alone.has(r.uid))) return [];
    const listed = this.#o.deleting(r.namespace);
    this.#prune(r.namespace, listed);
    const free = (cr: C) => {
      const key = keyOf(cr);
      const uid = cr.metadata.uid ?? '';
      if (key === r.key || this.#held.has(key) || this.#inFlight.has(key)) return false;
      if (this.#finished.has(uid) || this.#answered.has(uid) || this.#alone.has(uid)) return false;
      return cr.metadata.deletionTimestamp !== undefined;
    };
    const candidates = listed.filter(free).sort(byDeletion);
    const limit = Math.min(cap, batchShare(candidates.length + 1, this.#running, this.#o.lanes ?? 1)) - 1;
    const members: Member<C>[] = [];
    for (const cr of candidates) {
      if (members.length >= limit || r.signal.aborted) break;
      if (!free(cr)) continue; // another job took it while this one read
      const key = keyOf(cr);
      const held = QueueJob.hold(this.#held, this.#inFlight, key, cr.metadata.uid);
      const newest = await r.member(cr, r.signal).catch(() => undefined);
      if (held.settled) continue; // its own pass took it back meanwhile
      if (newest && wants(newest)) members.push({ key, cr, newest, held });
      else QueueJob.letGo(this.#held, this.#inFlight, held);
    }
    // A member picked early may have been taken back by its own pass while later ones were read: it runs there.
    return members.filter((m) => !m.held.settled);
  }

  #start(r: QueueRequest<C>, members: readonly Member<C>[]): QueueJob {
    return new QueueJob({
      key: r.key,
      held: this.#held,
      inFlight: this.#inFlight,
      members: members.map((m) => m.held),
      running: (delta) => {
        this.#running += delta;
      },
      onEnd: () => {
        if (members.length > 0) r.log.info({ release: r.release, batch: members.length + 1 }, 'Uninstalled together');
      },
    });
  }

  /** Drops what it remembers of `namespace`'s CRs the informers no longer list as being deleted. */
  #prune(namespace: string, listed: readonly C[]): void {
    const uids = new Set(listed.map((cr) => cr.metadata.uid));
    const keys = new Set(listed.map(keyOf));
    for (const seen of [this.#finished, this.#answered, this.#alone])
      for (const [uid, ns] of seen) if (ns === namespace && !uids.has(uid)) seen.delete(uid);
    for (const [key, held] of this.#held)
      if (held.settled && held.namespace === namespace && !keys.has(key)) this.#held.delete(key);
  }
}

/** The queue of one watch. */
export function uninstallQueue<C extends DeletingObject>(options: UninstallQueueOptions<C>): UninstallQueue<C> {
  return new UninstallQueue(options);
}

/** Bounded: the oldest goes first (long gone from the informers by then). */
function remember(seen: Map<string, string>, cr: DeletingObject): void {
  if (cr.metadata.uid === undefined) return;
  if (seen.size >= MAX_REMEMBERED) seen.delete(seen.keys().next().value as string);
  seen.set(cr.metadata.uid, cr.metadata.namespace ?? '');
}
