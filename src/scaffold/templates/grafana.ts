// config/grafana: two Grafana dashboards over the operator's metrics (controller-runtime's reconcile, work queue and
// process families; the helm-specific ones) and a kustomization that wraps them in a ConfigMap for Grafana's
// dashboard sidecar. Called by src/scaffold/init/init.ts. Project-independent: the dashboards pick the operator with
// their namespace/job variables. Pure data and text.
import type { FileSet } from '../files.js';
import { dashboard, type PanelSpec, type RowSpec, sel } from './grafana-layout.js';

const RATE = '[$__rate_interval]';
const byController = sel('controller=~"$controller"');
/** The work queue's `name` label is the controller's name. */
const byQueue = sel('name=~"$controller"');

const quantiles = (metric: string, selector: string, by: string): PanelSpec['targets'] =>
  [0.5, 0.9, 0.99].map((q) => ({
    expr: `histogram_quantile(${q}, sum by (${by}, le) (rate(${metric}_bucket${selector}${RATE})))`,
    legend: `p${q * 100} {{${by}}}`,
  }));

const RUNTIME: RowSpec[] = [
  {
    title: 'Reconciliation',
    panels: [
      {
        title: 'Reconciles per second',
        description:
          'controller_runtime_reconcile_total by controller and result (success, error, requeue, requeue_after).',
        unit: 'ops',
        targets: [
          {
            expr: `sum by (controller, result) (rate(controller_runtime_reconcile_total${byController}${RATE}))`,
            legend: '{{controller}} {{result}}',
          },
        ],
      },
      {
        title: 'Reconcile errors per second',
        description:
          'controller_runtime_reconcile_errors_total: failed reconciles (HelmOperatorReconcileErrors alerts).',
        unit: 'ops',
        targets: [
          {
            expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total${byController}${RATE}))`,
            legend: '{{controller}}',
          },
        ],
      },
      {
        title: 'Reconcile duration',
        description: 'p50, p90 and p99 of controller_runtime_reconcile_time_seconds (helm runs included).',
        unit: 's',
        targets: quantiles('controller_runtime_reconcile_time_seconds', byController, 'controller'),
      },
    ],
  },
  {
    title: 'Work queue',
    panels: [
      {
        title: 'Workers in use',
        description: 'controller_runtime_active_workers against controller_runtime_max_concurrent_reconciles.',
        unit: 'short',
        targets: [
          {
            expr: `sum by (controller) (controller_runtime_active_workers${byController})`,
            legend: '{{controller}} busy',
          },
          {
            expr: `sum by (controller) (controller_runtime_max_concurrent_reconciles${byController})`,
            legend: '{{controller}} max',
          },
        ],
      },
      {
        title: 'Work queue depth',
        description: 'workqueue_depth: CRs waiting for a worker (HelmOperatorWorkqueueGrowing alerts).',
        unit: 'short',
        targets: [{ expr: `sum by (name) (workqueue_depth${byQueue})`, legend: '{{name}}' }],
      },
      {
        title: 'Work queue adds and retries per second',
        description: 'workqueue_adds_total and workqueue_retries_total (retries are failed reconciles, with backoff).',
        unit: 'ops',
        targets: [
          { expr: `sum by (name) (rate(workqueue_adds_total${byQueue}${RATE}))`, legend: '{{name}} adds' },
          { expr: `sum by (name) (rate(workqueue_retries_total${byQueue}${RATE}))`, legend: '{{name}} retries' },
        ],
      },
      {
        title: 'Time in queue',
        description:
          'p50, p90 and p99 of workqueue_queue_duration_seconds: how long a CR waits before a worker takes it.',
        unit: 's',
        targets: quantiles('workqueue_queue_duration_seconds', byQueue, 'name'),
      },
      {
        title: 'Time in work',
        description: 'p50, p90 and p99 of workqueue_work_duration_seconds: how long a worker holds a CR.',
        unit: 's',
        targets: quantiles('workqueue_work_duration_seconds', byQueue, 'name'),
      },
      {
        title: 'Work in progress',
        description:
          'workqueue_longest_running_processor_seconds and workqueue_unfinished_work_seconds: large values mean stuck workers.',
        unit: 's',
        targets: [
          { expr: `max by (name) (workqueue_longest_running_processor_seconds${byQueue})`, legend: '{{name}} longest' },
          { expr: `sum by (name) (workqueue_unfinished_work_seconds${byQueue})`, legend: '{{name}} unfinished' },
        ],
      },
    ],
  },
  {
    title: 'Process',
    panels: [
      {
        title: 'CPU',
        description: 'process_cpu_seconds_total: CPU cores used per pod.',
        unit: 'short',
        targets: [{ expr: `sum by (pod) (rate(process_cpu_seconds_total${sel()}${RATE}))`, legend: '{{pod}}' }],
      },
      {
        title: 'Memory',
        description: 'process_resident_memory_bytes and the V8 heap in use (nodejs_heap_size_used_bytes) per pod.',
        unit: 'bytes',
        targets: [
          { expr: `sum by (pod) (process_resident_memory_bytes${sel()})`, legend: '{{pod}} resident' },
          { expr: `sum by (pod) (nodejs_heap_size_used_bytes${sel()})`, legend: '{{pod}} heap used' },
        ],
      },
      {
        title: 'Event loop lag',
        description: 'nodejs_eventloop_lag_p99_seconds: a busy event loop delays every reconcile and probe.',
        unit: 's',
        targets: [{ expr: `max by (pod) (nodejs_eventloop_lag_p99_seconds${sel()})`, legend: '{{pod}} p99' }],
      },
    ],
  },
];

const HELM: RowSpec[] = [
  {
    title: 'Helm',
    panels: [
      {
        title: 'Helm runs per second',
        description: 'helm_operator_helm_exec_duration_seconds_count by action and result.',
        unit: 'ops',
        targets: [
          {
            expr: `sum by (action, result) (rate(helm_operator_helm_exec_duration_seconds_count${sel()}${RATE}))`,
            legend: '{{action}} {{result}}',
          },
        ],
      },
      {
        title: 'Helm failures in the last hour',
        description: 'Failed helm runs by action (HelmOperatorReleaseFailing alerts when they go on for 30 minutes).',
        unit: 'short',
        type: 'stat',
        targets: [
          {
            expr: `sum by (action) (increase(helm_operator_helm_exec_duration_seconds_count${sel('result="error"')}[1h]))`,
            legend: '{{action}}',
          },
        ],
      },
      {
        title: 'Helm duration',
        description:
          'p50, p90 and p99 of helm_operator_helm_exec_duration_seconds by action (hooks and --wait included).',
        unit: 's',
        targets: quantiles('helm_operator_helm_exec_duration_seconds', sel(), 'action'),
      },
    ],
  },
  {
    title: 'Releases and drift',
    panels: [
      {
        title: 'Helm still running',
        description:
          'helm_operator_helm_still_running: runs past their HelmStillRunning threshold, each holding a worker and a pending release (HelmOperatorHelmStuck alerts).',
        unit: 'short',
        targets: [{ expr: `sum by (action) (helm_operator_helm_still_running${sel()})`, legend: '{{action}}' }],
      },
      {
        title: 'Custom resources (one release each) by kind',
        description: 'Watched CRs, counted from resource_created_at_seconds.',
        unit: 'short',
        type: 'stat',
        targets: [{ expr: `count by (kind) (resource_created_at_seconds${sel()})`, legend: '{{kind}}' }],
      },
      {
        title: 'Drift corrections',
        description:
          'helm_operator_drift_corrections_total: release objects put back by drift repair, by kind and action (HelmOperatorDriftCorrections alerts).',
        unit: 'short',
        targets: [
          {
            expr: `sum by (controller, kind, action) (increase(helm_operator_drift_corrections_total${byController}${RATE}))`,
            legend: '{{controller}} {{kind}} {{action}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Caches and leadership',
    panels: [
      {
        title: 'Dependent objects cached',
        description: 'helm_operator_dependent_objects_cached: objects the dependent informers hold, per pod.',
        unit: 'short',
        targets: [{ expr: `sum by (pod) (helm_operator_dependent_objects_cached${sel()})`, legend: '{{pod}}' }],
      },
      {
        title: 'Lease holders',
        description:
          'leader_election_master_status summed per Lease: 1 is healthy, 0 means no replica leads it (HelmOperatorNoLeader alerts).',
        unit: 'short',
        targets: [{ expr: `sum by (name) (leader_election_master_status${sel()})`, legend: '{{name}}' }],
      },
      {
        title: 'Shards held',
        description: 'helm_operator_shards_held per pod (with --shard-count > 1) and the build each pod runs.',
        unit: 'short',
        targets: [
          { expr: `sum by (pod) (helm_operator_shards_held${sel()})`, legend: '{{pod}} shards' },
          { expr: `max by (pod, version) (helm_operator_build_info${sel()})`, legend: '{{pod}} {{version}}' },
        ],
      },
    ],
  },
];

const json = (d: Record<string, unknown>) => `${JSON.stringify(d, null, 2)}\n`;

export function grafanaFiles(): FileSet {
  return {
    'config/grafana/controller-runtime-metrics.json': json(
      dashboard({
        uid: 'helm-operator-runtime',
        title: 'Helm operator / controller-runtime',
        description: 'Reconciles, work queues and the process of a helm-operator-ts operator.',
        rows: RUNTIME,
      }),
    ),
    'config/grafana/helm-metrics.json': json(
      dashboard({
        uid: 'helm-operator-helm',
        title: 'Helm operator / helm releases',
        description: 'Helm runs, releases, drift repair, dependents and leadership of a helm-operator-ts operator.',
        rows: HELM,
      }),
    ),
    'config/grafana/kustomization.yaml': `# The dashboards as a ConfigMap that Grafana's dashboard sidecar (label grafana_dashboard: "1") loads;
# apply it where the sidecar looks: kubectl apply -n <grafana namespace> -k config/grafana.
# Or import the JSON files in Grafana (Dashboards > New > Import) and pick the Prometheus data source.
configMapGenerator:
- name: helm-operator-dashboards
  files:
  - controller-runtime-metrics.json
  - helm-metrics.json
  options:
    disableNameSuffixHash: true
    labels:
      grafana_dashboard: "1"
`,
  };
}
