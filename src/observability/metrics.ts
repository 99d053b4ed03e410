// The operator's Prometheus metrics on a private prom-client Registry: controller-runtime's reconcile and workqueue
// families (same names, labels and buckets), helm exec timings, CR creation times, build info, Node process metrics.
// Built once by the CLI (cmd/cli.ts) and passed down; the only module that imports prom-client, and no prom-client
// type leaves it. Its methods never throw for unknown label values and never use the global registry.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { processCensus } from '../cache/census.js';
import type { ControllerMetrics, ReconcileResult } from '../controller/contract.js';
import type { HelmCommand } from '../helm/middleware.js';
import {
  HELM_BUCKETS,
  type MetricsOptions,
  ordered,
  type QueueProbe,
  RECONCILE_BUCKETS,
  type ResourceLabels,
  WORKQUEUE_BUCKETS,
} from './metrics-contract.js';

export class OperatorMetrics {
  readonly #registry = new Registry();
  readonly #queues = new Map<string, QueueProbe>();
  readonly #reconcileTotal: Counter<'controller' | 'result'>;
  readonly #reconcileErrors: Counter<'controller'>;
  readonly #reconcileTime: Histogram<'controller'>;
  readonly #maxConcurrent: Gauge<'controller'>;
  readonly #activeWorkers: Gauge<'controller'>;
  readonly #adds: Counter<'name' | 'controller'>;
  readonly #queueDuration: Histogram<'name' | 'controller'>;
  readonly #workDuration: Histogram<'name' | 'controller'>;
  readonly #retries: Counter<'name' | 'controller'>;
  readonly #createdAt: Gauge<keyof ResourceLabels>;
  readonly #leaderStatus: Gauge<'name'>;
  readonly #shardsHeld: Gauge;
  readonly #helmExec: Histogram<'action' | 'result'>;
  readonly #driftCorrections: Counter<'controller' | 'kind' | 'action'>;
  readonly #rollout: Readonly<Record<'pending' | 'upgraded' | 'failed', Gauge<'controller'>>>;
  #countDependents: () => number = () => 0;

  constructor(options: MetricsOptions) {
    const registers = [this.#registry];
    const queues = this.#queues;
    const perQueue = (g: Gauge<'name' | 'controller'>, value: (q: QueueProbe, now: number) => number) => {
      const now = performance.now();
      for (const [name, q] of queues) g.set({ name, controller: name }, value(q, now));
    };
    this.#reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.#reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.#reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [...RECONCILE_BUCKETS],
      registers,
    });
    this.#maxConcurrent = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.#activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        perQueue(this, (q) => q.depth());
      },
    });
    this.#adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.#queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: [...WORKQUEUE_BUCKETS],
      registers,
    });
    this.#workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name', 'controller'],
      buckets: [...WORKQUEUE_BUCKETS],
      registers,
    });
    this.#retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help:
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate ' +
        'at which this increases.',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        perQueue(this, (q, now) => [...q.processing.values()].reduce((sum, t) => sum + (now - t) / 1000, 0));
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        perQueue(this, (q, now) => [...q.processing.values()].reduce((max, t) => Math.max(max, (now - t) / 1000), 0));
      },
    });
    new Gauge({
      name: 'helm_operator_build_info',
      help: 'Build information for the helm-operator binary',
      labelNames: ['version', 'commit'],
      registers,
    }).set({ version: options.version, commit: options.commit ?? 'unknown' }, 1);
    this.#createdAt = new Gauge({
      name: 'resource_created_at_seconds',
      help: 'Timestamp at which a resource was created',
      labelNames: ['name', 'namespace', 'group', 'version', 'kind'],
      registers,
    });
    this.#helmExec = new Histogram({
      name: 'helm_operator_helm_exec_duration_seconds',
      help: 'How long each helm process took, by helm action and result',
      labelNames: ['action', 'result'],
      buckets: [...HELM_BUCKETS],
      registers,
    });
    this.#leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers,
    });
    this.#shardsHeld = new Gauge({
      name: 'helm_operator_shards_held',
      help: 'Shards whose Lease this replica holds (with --shard-count > 1): it reconciles the CRs of these shards',
      registers,
    });
    this.#driftCorrections = new Counter({
      name: 'helm_operator_drift_corrections_total',
      help: 'Objects of a release put back by drift repair (without helm), by kind and action (created or patched)',
      labelNames: ['controller', 'kind', 'action'],
      registers,
    });
    const rolloutGauge = (name: string, help: string) =>
      new Gauge({ name: `helm_operator_chart_rollout_${name}`, help, labelNames: ['controller'], registers });
    this.#rollout = {
      pending: rolloutGauge(
        'pending',
        'CRs whose chart-driven upgrade the chart rollout holds now (Waiting or Halted)',
      ),
      upgraded: rolloutGauge(
        'upgraded',
        'CRs upgraded by the current chart rollout (since the chart or process changed)',
      ),
      failed: rolloutGauge(
        'failed',
        'CRs whose upgrade in the current chart rollout failed and has not succeeded since',
      ),
    };
    const dependentObjects = () => this.#countDependents();
    new Gauge({
      name: 'helm_operator_dependent_objects_cached',
      help: 'Objects held by the label-selected dependent informers',
      registers,
      collect() {
        this.set(dependentObjects());
      },
    });
    const census = options.census ?? processCensus;
    new Gauge({
      name: 'helm_operator_informer_objects',
      help: 'Objects held in the stores of the running informers of this process, by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        for (const [kind, count] of census.objects()) this.set({ kind }, count);
      },
    });
    new Counter({
      name: 'helm_operator_informer_watch_events_total',
      help: 'Watch events received by the informers of this process, by kind and event type',
      labelNames: ['kind', 'type'],
      registers,
      collect() {
        // The census counts; each scrape copies its totals (they only grow while the process runs).
        this.reset();
        for (const { kind, type, count } of census.events()) this.inc({ kind, type }, count);
      },
    });
    // The event-loop delay is sampled every 100 ms, not prom-client's 10 ms: a 100 Hz timer cost 0.9 % of a core on
    // an idle operator here, once per replica (0.1 % at 100 ms); a stall still shows in the lag quantiles.
    if (options.defaultMetrics ?? true) {
      collectDefaultMetrics({ register: this.#registry, eventLoopMonitoringPrecision: 100 });
    }
  }

  /** The sink one Controller reports to; its workqueue series use the controller name as name and controller. */
  controller(name: string): ControllerMetrics {
    const c = { controller: name };
    const q = { name, controller: name };
    const processing = new Map<string, number>();
    return {
      init: (maxConcurrent, depth) => {
        this.#queues.set(name, { depth, processing });
        this.#maxConcurrent.set(c, maxConcurrent);
        this.#activeWorkers.set(c, 0);
        for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) {
          this.#reconcileTotal.inc({ ...c, result }, 0);
        }
        this.#reconcileErrors.inc(c, 0);
        this.#adds.inc(q, 0);
        this.#retries.inc(q, 0);
      },
      reconciled: (result: ReconcileResult, seconds) => {
        this.#reconcileTotal.inc({ ...c, result });
        if (result === 'error') this.#reconcileErrors.inc(c);
        this.#reconcileTime.observe(c, seconds);
      },
      activeWorkers: (delta) => this.#activeWorkers.inc(c, delta),
      queueAdd: () => this.#adds.inc(q),
      queueGet: (key, waitSeconds) => {
        processing.set(key, performance.now());
        this.#queueDuration.observe(q, waitSeconds);
      },
      queueDone: (key, workSeconds) => {
        processing.delete(key);
        this.#workDuration.observe(q, workSeconds);
      },
      queueRetry: () => this.#retries.inc(q),
    };
  }

  /** Sets resource_created_at_seconds for a CR the informer saw (creationTimestamp is RFC 3339). */
  resourceSeen(labels: ResourceLabels, creationTimestamp: string | undefined): void {
    const ms = creationTimestamp === undefined ? Number.NaN : Date.parse(creationTimestamp);
    if (Number.isFinite(ms)) this.#createdAt.set(ordered(labels), ms / 1000);
  }

  /** Drops the CR's resource_created_at_seconds series. */
  resourceDeleted(labels: ResourceLabels): void {
    this.#createdAt.remove(ordered(labels));
  }

  /** Records one helm process (or client call) by action and outcome. */
  helmExec(action: HelmCommand, result: 'success' | 'error', seconds: number): void {
    this.#helmExec.observe({ action, result }, seconds);
  }

  /** Registers helm_operator_helm_still_running{action}, read from `counts` at each scrape (call it once). */
  helmStillRunning(counts: () => Readonly<Record<string, number>>): void {
    new Gauge({
      name: 'helm_operator_helm_still_running',
      help: 'helm processes running past their HelmStillRunning threshold (30s, or a quarter of a shorter --timeout), by action',
      labelNames: ['action'],
      registers: [this.#registry],
      collect() {
        for (const [action, count] of Object.entries(counts())) this.set({ action }, count);
      },
    });
  }

  /** Counts one object put back by drift repair. */
  driftCorrected(controller: string, kind: string, action: 'created' | 'patched'): void {
    this.#driftCorrections.inc({ controller, kind, action });
  }

  /** Sets helm_operator_chart_rollout_{pending,upgraded,failed}{controller} (chart-rollout/gate.ts' counts). */
  chartRollout(controller: string, counts: { pending: number; upgraded: number; failed: number }): void {
    this.#rollout.pending.set({ controller }, counts.pending);
    this.#rollout.upgraded.set({ controller }, counts.upgraded);
    this.#rollout.failed.set({ controller }, counts.failed);
  }

  /** Where helm_operator_dependent_objects_cached reads its value at each scrape. */
  dependentObjects(count: () => number): void {
    this.#countDependents = count;
  }

  /** Sets leader_election_master_status{name} to 1 while this process leads the lease `name`, else 0. */
  leaderElection(name: string, leading: boolean): void {
    this.#leaderStatus.set({ name }, leading ? 1 : 0);
  }

  /** helm_operator_shards_held: how many shard Leases this replica holds. */
  shardsHeld(count: number): void {
    this.#shardsHeld.set(count);
  }

  /** The Prometheus text exposition of every family. */
  async render(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.#registry.contentType, body: await this.#registry.metrics() };
  }
}
