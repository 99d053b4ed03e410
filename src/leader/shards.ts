// Sharding's leases: one coordination.k8s.io Lease per shard (`<id>-shard-<i>`, elected as in election.ts). A replica
// campaigns for its own shard at once and for the others only after one lease duration, so that it takes a shard only
// when its owner is gone (lease expired or released); the owner, back, asks for it and the taker hands it over.
// Used by the manager; it gates reconciles through holds()/enter() and never reconciles or exits by itself.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { KubeClient } from '../kube/types.js';
import { LeaderElector, type LeaseTiming } from './election.js';
import { shardLeaseName } from './shard-hash.js';

export interface ShardSetOptions {
  readonly kube: KubeClient;
  /** Where the Leases live (the leader-election namespace). */
  readonly namespace: string;
  /** The Leases' name prefix (--leader-election-id). */
  readonly id: string;
  /** --shard-count: an integer ≥ 2. */
  readonly count: number;
  /** This replica's own shard, 0 … count − 1. */
  readonly index: number;
  /** Unique per process, e.g. `<hostname>_<uuid>`. */
  readonly identity: string;
  /** @default 15 s, 10 s, 2 s (as controller-runtime) */
  readonly timing?: LeaseTiming | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called whenever a shard is taken or given up. @default none */
  readonly onHeldChange?: (shard: number, lease: string, held: boolean) => void;
}

/** One reconcile's hold on its shard: `signal` aborts when the shard is lost; `exit()` once the reconcile is done. */
export interface ShardTicket {
  readonly signal: AbortSignal;
  exit(): void;
}

interface Shard {
  readonly index: number;
  readonly lease: string;
  readonly elector: LeaderElector;
  held: boolean;
  /** Aborted when the current term ends in a loss (not on a graceful stop or handover: those drain). */
  term: AbortController;
  inFlight: number;
  idle: (() => void)[];
  /** Set while the holder should hand the shard to its owner (only for another replica's shard). */
  handover: ((to: string) => void) | undefined;
}

type TermEnd = { readonly why: 'lost' | 'stop' } | { readonly why: 'handover'; readonly to: string };

export class ShardSet {
  readonly #o: ShardSetOptions;
  readonly #shards: Shard[];
  readonly #listeners: ((shard: number) => void)[] = [];
  readonly #releasedListeners: ((shard: number) => void)[] = [];
  readonly #leaseMs: number;

  constructor(options: ShardSetOptions) {
    const { count, index } = options;
    if (!Number.isSafeInteger(count) || count < 2) throw new RangeError(`shard count must be an integer ≥ 2: ${count}`);
    if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
      throw new RangeError(`shard index must be in 0…${count - 1}: ${index}`);
    }
    this.#o = options;
    this.#leaseMs = options.timing?.leaseDurationMs ?? 15_000;
    this.#shards = Array.from({ length: count }, (_, i) => this.#newShard(i));
  }

  get count(): number {
    return this.#o.count;
  }

  /** The shards held now, ascending. */
  held(): number[] {
    return this.#shards.filter((s) => s.held).map((s) => s.index);
  }

  holds(shard: number): boolean {
    return this.#shards[shard]?.held === true;
  }

  /** Registers a reconcile of a CR of `shard`; undefined when the shard is not held (do not reconcile). */
  enter(shard: number): ShardTicket | undefined {
    const s = this.#shards[shard];
    if (s === undefined || !s.held) return undefined;
    s.inFlight++;
    let done = false;
    return {
      signal: s.term.signal,
      exit: () => {
        if (done) return;
        done = true;
        s.inFlight--;
        if (s.inFlight === 0) for (const wake of s.idle.splice(0)) wake();
      },
    };
  }

  /** `fn(shard)` runs each time a shard is taken (e.g. to enqueue its CRs from the cache); must not throw. */
  onAcquired(fn: (shard: number) => void): void {
    this.#listeners.push(fn);
  }

  /**
   * `fn(shard)` runs each time a shard is given up, once its reconciles have drained and before its Lease is released
   * (e.g. to stop that shard's informers); must not throw.
   */
  onReleased(fn: (shard: number) => void): void {
    this.#releasedListeners.push(fn);
  }

  /**
   * Holds the Lease of a shard beyond the count (one a replica with a larger --shard-count may still hold) while
   * `fn` runs: waits until no one holds it, runs `fn` under a signal that aborts when the Lease is lost, releases it.
   */
  async holdRetired(shard: number, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (!Number.isSafeInteger(shard) || shard < this.#o.count) throw new RangeError(`shard ${shard} is not retired`);
    const { kube, namespace, id, identity, clock, logger, timing } = this.#o;
    const lease = shardLeaseName(id, shard);
    const elector = new LeaderElector({
      kube,
      namespace,
      name: lease,
      identity,
      ...(timing ?? {}),
      clock,
      logger: logger.child({ shard, retired: true }),
    });
    await elector.acquire(signal);
    logger.info({ shard, lease }, 'Acquired retired shard');
    try {
      await fn(AbortSignal.any([signal, elector.leaderSignal]));
    } finally {
      await elector.release(AbortSignal.timeout(5_000));
      logger.info({ shard, lease }, 'Released retired shard');
    }
  }

  /** Campaigns for every shard until `signal` aborts, then stops reconciling and releases every lease held. */
  async run(signal: AbortSignal): Promise<void> {
    this.#o.logger.info(
      { shards: this.#o.count, own: this.#o.index, identity: this.#o.identity },
      'Campaigning for shard leases',
    );
    await Promise.all(this.#shards.map((s) => this.#campaign(s, signal)));
  }

  async #campaign(s: Shard, signal: AbortSignal): Promise<void> {
    const own = s.index === this.#o.index;
    // Another replica's shard: give its owner one lease duration to come up and take it first.
    if (!own && !(await this.#sleep(this.#leaseMs, signal))) return;
    for (;;) {
      try {
        await s.elector.acquire(signal);
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
      this.#open(s, own);
      const end = await this.#termEnd(s, signal);
      this.#close(s, end);
      await this.#drained(s);
      this.#notify(this.#releasedListeners, s.index);
      if (end.why === 'stop') {
        await s.elector.release(AbortSignal.timeout(5_000));
        return;
      }
      if (end.why === 'handover') await s.elector.release(signal, { to: end.to });
    }
  }

  #open(s: Shard, own: boolean): void {
    s.term = new AbortController();
    s.held = true;
    this.#o.logger.info({ shard: s.index, lease: s.lease, own }, 'Acquired shard');
    this.#o.onHeldChange?.(s.index, s.lease, true);
    this.#notify(this.#listeners, s.index);
  }

  #notify(listeners: readonly ((shard: number) => void)[], shard: number): void {
    for (const fn of listeners) {
      try {
        fn(shard);
      } catch (err) {
        this.#o.logger.error({ shard, err: String(err) }, 'Shard listener failed');
      }
    }
  }

  /** Stops admitting reconciles of the shard; a loss also aborts the running ones. */
  #close(s: Shard, end: TermEnd): void {
    s.held = false;
    s.handover = undefined;
    this.#o.onHeldChange?.(s.index, s.lease, false);
    const fields = { shard: s.index, lease: s.lease, running: s.inFlight };
    const lost = s.elector.leaderSignal;
    const term = s.term;
    // While the running reconciles drain, a loss of the lease still aborts them.
    if (end.why !== 'lost') lost.addEventListener('abort', () => term.abort(lost.reason), { once: true });
    if (end.why === 'lost') {
      s.term.abort(s.elector.leaderSignal.reason);
      this.#o.logger.error(fields, 'Lost shard');
    } else if (end.why === 'handover') {
      this.#o.logger.info({ ...fields, to: end.to }, 'Handing shard back to its owner');
    } else {
      this.#o.logger.info(fields, 'Releasing shard');
    }
  }

  /** Resolves when the term ends: the lease is lost, its owner asks for it, or `signal` aborts. */
  #termEnd(s: Shard, signal: AbortSignal): Promise<TermEnd> {
    const lost = s.elector.leaderSignal;
    return new Promise<TermEnd>((resolve) => {
      const finish = (end: TermEnd) => {
        lost.removeEventListener('abort', onLost);
        signal.removeEventListener('abort', onStop);
        s.handover = undefined;
        resolve(end);
      };
      const onLost = () => finish({ why: 'lost' });
      const onStop = () => finish({ why: 'stop' });
      if (signal.aborted) return onStop();
      if (lost.aborted) return onLost();
      lost.addEventListener('abort', onLost, { once: true });
      signal.addEventListener('abort', onStop, { once: true });
      if (s.index !== this.#o.index) s.handover = (to) => finish({ why: 'handover', to });
    });
  }

  /** Resolves once no reconcile of the shard runs. */
  #drained(s: Shard): Promise<void> {
    if (s.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => s.idle.push(resolve));
  }

  /** False when `signal` aborted first. */
  async #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#o.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  #newShard(index: number): Shard {
    const { kube, namespace, id, identity, clock, logger, timing } = this.#o;
    const lease = shardLeaseName(id, index);
    const shard: Shard = {
      index,
      lease,
      held: false,
      term: new AbortController(),
      inFlight: 0,
      idle: [],
      handover: undefined,
      elector: new LeaderElector({
        kube,
        namespace,
        name: lease,
        identity,
        ...(timing ?? {}),
        clock,
        logger: logger.child({ shard: index }),
        requestHandover: index === this.#o.index,
        onHandoverRequest: (to) => shard.handover?.(to),
      }),
    };
    return shard;
  }
}

/**
 * Terms of the shards held, as a caller outside the manager sees them (manager/shard-terms.ts builds them): `open`
 * runs for each shard held, with a signal that aborts when it is given back; `start` begins with the run's signal.
 */
export type ShardTermsOf = (open: (shard: number, signal: AbortSignal) => void) => {
  start(signal: AbortSignal): void;
};
