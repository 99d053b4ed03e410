// The running operator: owns the metrics and probe servers, the post-render server, leader election (or the shard
// leases, leader/shards.ts) and the controllers (operator.ts), runs them under the caller's AbortSignal and shuts
// them down in order: stop taking work, let reconciles and helm finish (within a grace), release the lease(s), then
// close the servers. Built and driven by `helm-operator run` (cmd/run.ts), which hands it every real dependency;
// never reads process.*, installs signal handlers or exits.
import type { Controller } from '../controller/controller.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { KubeClient } from '../kube/types.js';
import { LeaderElector, type LeaseTiming } from '../leader/election.js';
import { shardLeaseName } from '../leader/shard-hash.js';
import { ShardSet } from '../leader/shards.js';
import type { OperatorMetrics } from '../observability/metrics.js';
import { type FifoPostRenderServer, startFifoPostRenderServer } from '../ownership/fifo-server.js';
import { OutsideObjectMemo } from '../ownership/orphans.js';
import type { PostRenderRequest } from '../ownership/request.js';
import { type HttpServers, type HttpServersOptions, startHttpServers } from '../server/http.js';
import { runGroup } from './group.js';
import { runOperator } from './operator.js';
import type { OperatorOptions } from './options.js';

export interface ManagerOptions {
  /** The metrics and probe servers, without what the manager supplies (readiness, metrics, logger). */
  readonly servers: Omit<HttpServersOptions, 'metrics' | 'readyz' | 'logger'>;
  readonly metrics: OperatorMetrics;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The Lease to compete for, and who we are. */
export interface LeaseOptions {
  readonly namespace: string;
  readonly name: string;
  /** Unique per process, e.g. `<hostname>_<uuid>`. */
  readonly identity: string;
  /** @default 15 s lease, 10 s renew deadline, 2 s retry */
  readonly timing?: LeaseTiming | undefined;
}

/** Sharding (--shard-count > 1): one Lease per shard, `<name>-shard-<i>`; replaces the single leader election. */
export interface ShardingOptions extends LeaseOptions {
  readonly count: number;
  /** This replica's own shard. */
  readonly index: number;
}

export interface ManagerRunOptions
  extends Omit<
    OperatorOptions,
    'clock' | 'logger' | 'metrics' | 'onControllers' | 'onDependentWatcher' | 'postRender' | 'shards'
  > {
  /** helm's post-renderer (ownership/fifo-script.ts) asks through this private directory. */
  readonly postRender: {
    readonly dir: string;
    readonly render: (req: PostRenderRequest, signal: AbortSignal) => Promise<string>;
    /** Ends a waiting post-renderer: process.kill. */
    readonly kill: (pid: number, signal: 'SIGUSR1' | 'SIGUSR2') => void;
  };
  /** Leader election; absent: lead at once. @default none */
  readonly lease?: LeaseOptions | undefined;
  /** Sharding; when set, `lease` is ignored (every shard is led separately). @default none */
  readonly shards?: ShardingOptions | undefined;
  /**
   * How long after the stop the running reconciles may take (--graceful-shutdown-timeout); then their helm is
   * stopped (SIGTERM, SIGKILL after helm's kill grace). 0 stops helm at once. @default 0
   */
  readonly shutdownGraceMs?: number | undefined;
}

export class Manager {
  readonly #o: ManagerOptions;
  #servers: HttpServers | undefined;
  #renderServer: FifoPostRenderServer | undefined;
  #controllers: readonly Controller[] | undefined;
  #elector: LeaderElector | undefined;

  private constructor(options: ManagerOptions) {
    this.#o = options;
  }

  /**
   * Starts the metrics and probe servers: /healthz answers at once, /readyz is 503 until every controller's
   * informers have synced (a standby waiting for the lease is ready). Rejects when a server cannot bind.
   */
  static async start(options: ManagerOptions): Promise<Manager> {
    const manager = new Manager(options);
    manager.#servers = await startHttpServers({
      ...options.servers,
      metrics: options.metrics,
      readyz: () => manager.#readyz(),
      logger: options.logger,
    });
    return manager;
  }

  /** The servers' bound addresses ("host:port"); absent when that server is disabled. */
  get addresses(): HttpServers['addresses'] {
    return this.#servers?.addresses ?? {};
  }

  /**
   * Runs the operator until `signal` aborts (a graceful stop) or the lease is lost: starts the post-render server,
   * waits for the lease (a standby runs no controller and no helm), runs the controllers. On `signal` no reconcile
   * starts any more, and the running ones (their helm included) finish, still under the lease, which is renewed
   * meanwhile: no other replica can start helm on the same release while ours runs. After `shutdownGraceMs` the
   * running helm is stopped. Then the lease is released, so that a standby takes over at once. Losing the lease
   * aborts the running reconciles at once (another replica may lead within the lease duration). Resolves to the exit
   * code: 0 after a stop, 1 when the lease was lost. Rejects on a startup failure.
   */
  async run(o: ManagerRunOptions, signal: AbortSignal): Promise<number> {
    const { logger, clock } = this.#o;
    // Every manifest helm is about to apply: what it puts outside the CR's namespace is remembered, so that a
    // deletion that finds the release record gone (a namespace deleted mid-install) still removes it.
    const outside = new OutsideObjectMemo();
    this.#renderServer = await startFifoPostRenderServer({
      dir: o.postRender.dir,
      kill: o.postRender.kill,
      signal,
      render: outside.remembering(o.postRender.render),
      logger: logger.child({ component: 'post-render' }),
    });
    // Aborts the running reconciles and their helm: once the grace after the stop runs out.
    const cancel = new AbortController();
    const graceMs = o.shutdownGraceMs ?? 0;
    let endGrace: (() => void) | undefined;
    const onStop = () => {
      endGrace = clock.setTimer(graceMs, () => {
        logger.warn({ graceMs }, 'Graceful shutdown timed out: stopping the helm processes still running');
        cancel.abort(new Error(`graceful shutdown timed out after ${graceMs} ms`));
      });
    };
    if (signal.aborted) onStop();
    else signal.addEventListener('abort', onStop, { once: true });
    try {
      return await this.#lead(o, signal, cancel.signal, outside);
    } finally {
      signal.removeEventListener('abort', onStop);
      endGrace?.();
    }
  }

  /** Waits for the lease (or the shards' leases), runs the controllers until stopped, releases the lease. */
  async #lead(o: ManagerRunOptions, stop: AbortSignal, cancel: AbortSignal, outside: OutsideObjectMemo) {
    const { logger, metrics, clock } = this.#o;
    // Leader election: losing the lease stops reconciling at once (exit 1); a graceful stop releases it so that a
    // standby takes over without waiting.
    let elector: LeaderElector | undefined;
    let operatorSignal = cancel;
    const shards = o.shards && this.#newShardSet(o.kube, o.shards);
    if (o.lease !== undefined && shards === undefined) {
      elector = this.#newElector(o.kube, o.lease);
      if (!(await this.#acquire(elector, o.lease, stop))) return 0;
      operatorSignal = AbortSignal.any([cancel, elector.leaderSignal]);
    }
    const { postRender: _socket, lease: _lease, shards: _shards, shutdownGraceMs: _grace, ...operator } = o;
    const operate = (s: AbortSignal) =>
      runOperator(
        {
          ...operator,
          shards,
          clock,
          logger,
          metrics,
          onControllers: (built) => {
            this.#controllers = built;
          },
          postRender: true,
          outside,
          onDependentWatcher: (w) => metrics.dependentObjects(() => w.cachedObjects()),
        },
        s,
        stop,
      );
    // Sharding: the leases are campaigned for beside the controllers, which reconcile only the shards held; on the
    // stop each shard admits no reconcile, waits for its running ones, then releases its Lease (leader/shards.ts).
    const running = shards
      ? runGroup([operate, (s) => shards.run(AbortSignal.any([s, stop]))], operatorSignal)
      : operate(operatorSignal);
    await running.catch((err: unknown) => {
      // Aborting for a lost lease can surface as a rejected startup call; the loss is what to report.
      if (!elector?.leaderSignal.aborted) throw err;
    });
    if (elector?.leaderSignal.aborted) return 1;
    await elector?.release(AbortSignal.timeout(5_000));
    logger.info({}, 'Stopped');
    return 0;
  }

  /** Closes the metrics and probe servers, then the post-render server. */
  async close(): Promise<void> {
    await this.#servers?.close();
    await this.#renderServer?.close();
  }

  #readyz(): true | string {
    // A standby is healthy: it waits for the lease and starts its controllers only once it leads.
    if (this.#elector !== undefined && !this.#elector.isLeader()) return true;
    if (this.#controllers === undefined) return 'controllers are not started yet';
    const waiting = this.#controllers.filter((c) => !c.synced()).map((c) => c.name);
    return waiting.length === 0 ? true : `waiting for the first sync of: ${waiting.join(', ')}`;
  }

  #newShardSet(kube: KubeClient, o: ShardingOptions): ShardSet {
    const { metrics, logger } = this.#o;
    for (let i = 0; i < o.count; i++) metrics.leaderElection(shardLeaseName(o.name, i), false);
    metrics.shardsHeld(0);
    const set: ShardSet = new ShardSet({
      kube,
      namespace: o.namespace,
      id: o.name,
      count: o.count,
      index: o.index,
      identity: o.identity,
      timing: o.timing,
      clock: this.#o.clock,
      logger: logger.child({ component: 'sharding' }),
      onHeldChange: (_shard, lease, held) => {
        metrics.leaderElection(lease, held);
        metrics.shardsHeld(set.held().length);
      },
    });
    return set;
  }

  #newElector(kube: KubeClient, lease: LeaseOptions): LeaderElector {
    const { metrics, logger } = this.#o;
    metrics.leaderElection(lease.name, false);
    const le = new LeaderElector({
      kube,
      namespace: lease.namespace,
      name: lease.name,
      identity: lease.identity,
      ...(lease.timing ?? {}),
      clock: this.#o.clock,
      logger: logger.child({ component: 'leader-election' }),
      onLeadingChange: (leading) => metrics.leaderElection(lease.name, leading),
    });
    this.#elector = le;
    return le;
  }

  /** Waits for the lease; false when `signal` aborted first. Logs the loss of the lease once it is held. */
  async #acquire(le: LeaderElector, lease: LeaseOptions, signal: AbortSignal): Promise<boolean> {
    const { logger } = this.#o;
    logger.info(
      { lease: `${lease.namespace}/${lease.name}`, identity: le.identity },
      'Attempting to acquire leader lease',
    );
    try {
      await le.acquire(signal);
    } catch (err) {
      if (!signal.aborted) throw err;
      logger.info({}, 'Stopped before acquiring the leader lease');
      return false;
    }
    le.leaderSignal.addEventListener(
      'abort',
      () => logger.error({ err: errFields(le.leaderSignal.reason) }, 'Leader election lost'),
      { once: true },
    );
    return true;
  }
}
