// Lease-based leader election (coordination.k8s.io/v1 Lease), with client-go leaderelection's semantics: acquire
// when the lease is free, expired or ours (optimistic concurrency on resourceVersion), renew every retry period (one
// update of the Lease as last written; a conflict reads it), and report the loss when no renew succeeds within the
// renew deadline; for sharding, also ask a holder for the lease and hand it over (handover.ts). Used by the manager
// (manager/manager.ts) and the shard set (shards.ts). Never exits the process and never starts controllers itself:
// the caller decides what leading means.

import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import { OperatorError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../kube/errors.js';
import type { KubeClient, KubeObject } from '../kube/types.js';
import { handoverRequest, requestedBy, withoutRequest, withRequest } from './handover.js';
import { expired, LEASES, type LeaseSpec, microTime, specOf } from './lease-record.js';

export interface LeaderElectorOptions {
  readonly kube: KubeClient;
  readonly namespace: string;
  /** The Lease's name (--leader-election-id). */
  readonly name: string;
  /** Unique per process, e.g. `<hostname>_<uuid>`. */
  readonly identity: string;
  /** How long a lease stays valid after its last renew. @default 15_000 */
  readonly leaseDurationMs?: number;
  /** The leader gives up when no renew succeeded for this long. @default 10_000 */
  readonly renewDeadlineMs?: number;
  /** The pause between acquire attempts and between renews. @default 2_000 */
  readonly retryPeriodMs?: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called with true when leadership starts and false when it ends (lost or released). @default none */
  readonly onLeadingChange?: (leading: boolean) => void;
  /** While waiting and the lease is validly held by another, ask for it (handover.ts). @default false */
  readonly requestHandover?: boolean;
  /** Called after each renew while another identity asks for the lease (sharding). @default none */
  readonly onHandoverRequest?: (to: string) => void;
}

/** The lease timings (--leader-elect-lease-duration, …-renew-deadline, …-retry-period). */
export interface LeaseTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** The reason `leaderSignal` aborts with. */
export class LeadershipLostError extends OperatorError {
  readonly code = 'LEADER_ELECTION_LOST';
}

export class LeaderElector {
  readonly #o: LeaderElectorOptions;
  readonly #leaseMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryMs: number;
  #leading = false;
  #lost = new AbortController();
  /** Stops the renew loop (release). */
  #stopRenew = new AbortController();
  #renewing: Promise<void> | undefined;
  #observedHolder: string | undefined;
  /** Who asked for the lease at our last renew. */
  #handoverTo: string | undefined;
  /** The Lease as our last successful write left it: the next renew updates it without a GET first. */
  #written: KubeObject | undefined;

  constructor(options: LeaderElectorOptions) {
    this.#o = options;
    this.#leaseMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryMs = options.retryPeriodMs ?? 2_000;
    if (!(this.#renewDeadlineMs < this.#leaseMs)) throw new RangeError('renewDeadlineMs must be below leaseDurationMs');
    if (!(this.#retryMs > 0 && this.#retryMs < this.#renewDeadlineMs)) {
      throw new RangeError('retryPeriodMs must be positive and below renewDeadlineMs');
    }
  }

  get identity(): string {
    return this.#o.identity;
  }

  isLeader(): boolean {
    return this.#leading;
  }

  /** Aborts (with a LeadershipLostError) when leadership is lost; never aborts on release(). */
  get leaderSignal(): AbortSignal {
    return this.#lost.signal;
  }

  /**
   * Tries every retry period until the lease is ours, then keeps renewing it in the background. Rejects with
   * `signal.reason` when `signal` aborts first.
   */
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.#leading) return;
    for (;;) {
      signal.throwIfAborted();
      if (await this.#tryAcquireOrRenew(signal)) break;
      await this.#o.clock.sleep(this.#retryMs, signal);
    }
    this.#lost = new AbortController();
    this.#stopRenew = new AbortController();
    this.#setLeading(true);
    this.#o.logger.info({ lease: this.#where(), identity: this.#o.identity }, 'Successfully acquired lease');
    this.#renewing = this.#renewLoop(this.#stopRenew.signal);
  }

  /**
   * Stops renewing and, if the lease is still ours, marks it free (holder '', duration 1 s, renewed now) so that a
   * standby takes over at once, or with `to` hands it to that identity (a fresh full term, which it renews as its
   * own). Best effort: failures are logged, not thrown (the lease then simply expires).
   */
  async release(signal: AbortSignal, opts: { readonly to?: string } = {}): Promise<void> {
    this.#stopRenew.abort(new Error('releasing the lease'));
    await this.#renewing;
    if (!this.#leading) return;
    this.#setLeading(false);
    try {
      const lease = await this.#o.kube.get(LEASES, this.#o.namespace, this.#o.name, { signal });
      const spec = specOf(lease);
      if (spec.holderIdentity !== this.#o.identity) return;
      const now = microTime(this.#o.clock.now());
      const to = opts.to;
      const handed = to === undefined ? {} : { leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
      await this.#o.kube.update(
        LEASES,
        {
          ...withoutRequest(lease, () => to !== undefined),
          spec: {
            ...spec,
            ...handed,
            holderIdentity: to ?? '',
            leaseDurationSeconds: to === undefined ? 1 : Math.ceil(this.#leaseMs / 1000),
            acquireTime: now,
            renewTime: now,
          },
        },
        { signal },
      );
      if (to === undefined) this.#o.logger.info({ lease: this.#where() }, 'Released leader lease');
      else this.#o.logger.info({ lease: this.#where(), to }, 'Handed the lease over');
    } catch (err) {
      this.#o.logger.warn({ lease: this.#where(), err: errFields(err) }, 'Could not release the leader lease');
    }
  }

  async #renewLoop(stop: AbortSignal): Promise<void> {
    const { clock } = this.#o;
    let lastRenew = clock.now();
    try {
      for (;;) {
        await clock.sleep(this.#retryMs, stop);
        // One attempt may not outlive the renew deadline (a hung request must not keep us "leading").
        const attempt = new AbortController();
        const cancel = clock.setTimer(Math.max(0, lastRenew + this.#renewDeadlineMs - clock.now()), () =>
          attempt.abort(new Error('renew deadline exceeded')),
        );
        let ok: boolean | 'lost';
        try {
          ok = await this.#tryAcquireOrRenew(AbortSignal.any([stop, attempt.signal]));
        } finally {
          cancel();
        }
        if (stop.aborted) return;
        if (ok === true) {
          lastRenew = clock.now();
          if (this.#handoverTo !== undefined) this.#o.onHandoverRequest?.(this.#handoverTo);
          continue;
        }
        if (ok === 'lost') return this.#lose(`the lease is held by ${this.#observedHolder ?? 'another holder'}`);
        if (clock.now() - lastRenew >= this.#renewDeadlineMs) {
          return this.#lose(`no successful renew within ${this.#renewDeadlineMs} ms`);
        }
      }
    } catch (err) {
      if (!stop.aborted) this.#lose(`renew loop failed: ${String(err)}`);
    }
  }

  #lose(why: string): void {
    this.#setLeading(false);
    this.#o.logger.error({ lease: this.#where(), reason: why }, 'Failed to renew the leader lease');
    this.#lost.abort(new LeadershipLostError(`leader election lost: ${why}`));
  }

  #setLeading(leading: boolean): void {
    if (this.#leading === leading) return;
    this.#leading = leading;
    this.#o.onLeadingChange?.(leading);
  }

  /** true: the lease is ours now; false: not now (retry); 'lost': someone else validly holds it while we lead. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean | 'lost'> {
    const { kube, clock, identity, namespace, name } = this.#o;
    const now = clock.now();
    const record = (old: LeaseSpec | undefined): LeaseSpec => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.#leaseMs / 1000),
      acquireTime: old?.holderIdentity === identity && old.acquireTime ? old.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: old === undefined ? 0 : (old.leaseTransitions ?? 0) + (old.holderIdentity === identity ? 0 : 1),
    });
    try {
      // client-go's fast path: a leader renews the Lease it last wrote, one request; a conflict (the Lease changed:
      // a handover request, another holder) falls back to reading it.
      const written = this.#leading ? this.#written : undefined;
      if (written !== undefined) {
        const renewed = await this.#renewWritten(written, record, signal);
        if (renewed) return true;
      }
      let lease: KubeObject;
      try {
        lease = await kube.get(LEASES, namespace, name, { signal });
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        const fresh: KubeObject = {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: record(undefined),
        };
        this.#written = await kube.create(LEASES, fresh, { signal });
        this.#handoverTo = undefined;
        this.#observe(identity);
        return true;
      }
      const old = specOf(lease);
      const holder = old.holderIdentity ?? '';
      this.#observe(holder);
      if (holder !== '' && holder !== identity && !expired(old, now)) {
        if (this.#leading) return 'lost';
        if (this.#o.requestHandover && !requestedBy(lease, identity)) {
          await kube.update(LEASES, withRequest(lease, identity), { signal });
          this.#o.logger.info({ lease: this.#where(), holder }, 'Asked the holder to hand the lease over');
        }
        return false;
      }
      this.#handoverTo = handoverRequest(lease, identity);
      const mine = withoutRequest(lease, (to) => to === identity); // our own request is done
      this.#written = await kube.update(LEASES, { ...mine, spec: { ...old, ...record(old) } }, { signal });
      this.#observe(identity);
      return true;
    } catch (err) {
      if (signal.aborted) return false;
      if (err instanceof ConflictError || err instanceof AlreadyExistsError) {
        this.#o.logger.debug({ lease: this.#where() }, 'Lost a race for the leader lease');
      } else {
        this.#o.logger.warn({ lease: this.#where(), err: errFields(err) }, 'Error reading or writing the leader lease');
      }
      return false;
    }
  }

  /** Renews the Lease as we last wrote it; false on a conflict (read it, then decide), other errors thrown. */
  async #renewWritten(
    written: KubeObject,
    record: (old: LeaseSpec | undefined) => LeaseSpec,
    signal: AbortSignal,
  ): Promise<boolean> {
    const old = specOf(written);
    try {
      this.#written = await this.#o.kube.update(LEASES, { ...written, spec: { ...old, ...record(old) } }, { signal });
      return true;
    } catch (err) {
      this.#written = undefined;
      if (err instanceof ConflictError) return false;
      throw err;
    }
  }

  #observe(holder: string): void {
    if (holder === this.#observedHolder) return;
    this.#observedHolder = holder;
    if (holder !== '' && holder !== this.#o.identity) {
      this.#o.logger.info({ lease: this.#where(), holder }, 'Another instance holds the leader lease');
    }
  }

  #where(): string {
    return `${this.#o.namespace}/${this.#o.name}`;
  }
}
