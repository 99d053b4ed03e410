// The metrics' contract: controller-runtime's and client-go's bucket boundaries, the helm actions, a CR's label set
// and the options of OperatorMetrics, which callers (the helm metrics middleware, the CLI) read without loading
// prom-client. Pure data; metrics.ts implements it. Never imports prom-client.
import type { InformerCensus } from '../cache/census.js';

/** controller-runtime's reconcile_time_seconds buckets (pkg/internal/controller/metrics). */
export const RECONCILE_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's workqueue duration buckets: prometheus.ExponentialBuckets(10e-9, 10, 12). */
export const WORKQUEUE_BUCKETS: readonly number[] = Array.from({ length: 12 }, (_, i) => Number(`1e${i - 8}`));
/** helm processes take from a fraction of a second (version) to minutes (install --wait). */
export const HELM_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Identifies one custom resource for resource_created_at_seconds. */
export interface ResourceLabels {
  readonly name: string;
  readonly namespace: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface MetricsOptions {
  readonly version: string;
  /** @default "unknown" */
  readonly commit?: string;
  /** Node process and runtime metrics (process_*, nodejs_*). @default true */
  readonly defaultMetrics?: boolean;
  /** What helm_operator_informer_objects and helm_operator_informer_watch_events_total read. @default processCensus */
  readonly census?: InformerCensus;
}

/** What the workqueue metrics read of one queue at each scrape. */
export interface QueueProbe {
  readonly depth: () => number;
  /** Keys being processed → performance.now() when handed out. */
  readonly processing: Map<string, number>;
}

/** prom-client prints labels in the object's key order: keep controller-runtime's name, namespace, group, … */
export function ordered(l: ResourceLabels): ResourceLabels {
  return { name: l.name, namespace: l.namespace, group: l.group, version: l.version, kind: l.kind };
}
