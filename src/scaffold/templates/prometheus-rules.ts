// config/prometheus/alerts.yaml: a prometheus-operator PrometheusRule that alerts on the operator's own metrics
// (down, no leader, reconcile errors, failing or hanging helm, a growing work queue, repeated drift repair).
// Called by templates/prometheus.ts; every expression selects the project's metrics Service by its job label.
// Pure data and text: the alert table of docs/operations.md and src/scaffold/templates/observability.test.ts follow
// it.
import { stringify } from '../../config/yaml.js';
import { CONTROL_PLANE, METRICS_SERVICE, type ScaffoldContext } from './context.js';

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: { readonly severity: 'critical' | 'warning' | 'info' };
  readonly annotations: { readonly summary: string; readonly description: string; readonly runbook: string };
}

const HELM_ACTIONS = 'install|upgrade|uninstall|rollback';

/** The alerts, for the project's metrics Service (job label `<project>-controller-manager-metrics-service`). */
export function alertRules({ projectName }: ScaffoldContext): AlertRule[] {
  const job = `job="${projectName}-${METRICS_SERVICE}"`;
  const system = `${projectName}-system`;
  const logs = `kubectl -n ${system} logs deploy/${projectName}-controller-manager`;
  return [
    {
      alert: 'HelmOperatorDown',
      expr: `absent(helm_operator_build_info{${job}})`,
      for: '10m',
      labels: { severity: 'critical' },
      annotations: {
        summary: `The ${projectName} operator has exposed no metrics for 10 minutes.`,
        description: `Prometheus has scraped no helm_operator_build_info from {{ $labels.job }} for 10 minutes: the operator is not running, or Prometheus cannot reach its metrics Service. No custom resource is reconciled meanwhile.`,
        runbook: `kubectl -n ${system} get pods,endpoints; ${logs}; check that the ServiceMonitor selects the metrics Service and that Prometheus' ServiceAccount is bound to the metrics-reader ClusterRole.`,
      },
    },
    {
      alert: 'HelmOperatorNoLeader',
      expr: `max by (namespace, name) (leader_election_master_status{${job}}) == 0`,
      for: '5m',
      labels: { severity: 'critical' },
      annotations: {
        summary: 'No replica holds the leader Lease {{ $labels.name }}.',
        description: `No replica of the ${projectName} operator (namespace {{ $labels.namespace }}) has held the Lease {{ $labels.name }} for 5 minutes: the custom resources it guards (all of them, or one shard's with --shard-count) are not reconciled.`,
        runbook:
          'kubectl -n {{ $labels.namespace }} get lease {{ $labels.name }} -o yaml (holderIdentity, renewTime); ' +
          `${logs} (leader election lines); check the leader-election Role's leases rule and the API server's health.`,
      },
    },
    {
      alert: 'HelmOperatorReconcileErrors',
      expr: [
        `sum by (namespace, controller) (rate(controller_runtime_reconcile_errors_total{${job}}[5m]))`,
        `  / sum by (namespace, controller) (rate(controller_runtime_reconcile_total{${job}}[5m]))`,
        '  > 0.1',
      ].join('\n'),
      for: '15m',
      labels: { severity: 'warning' },
      annotations: {
        summary: '{{ $labels.controller }} fails {{ $value | humanizePercentage }} of its reconciles.',
        description:
          'More than 10% of the reconciles of {{ $labels.controller }} (namespace {{ $labels.namespace }}) have failed for 15 minutes.',
        runbook:
          "kubectl get events -A --field-selector type=Warning: ReconcileError, InstallFailed and UpgradeFailed name the CRs; their ReleaseFailed and Irreconcilable conditions carry helm's error; " +
          `${logs} | grep 'Reconciler error'.`,
      },
    },
    {
      alert: 'HelmOperatorReleaseFailing',
      expr: `sum by (namespace, action) (increase(helm_operator_helm_exec_duration_seconds_count{${job}, result="error", action=~"${HELM_ACTIONS}"}[20m])) > 0`,
      for: '30m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'helm {{ $labels.action }} has kept failing for 30 minutes.',
        description:
          'Every 20-minute window of the last 30 minutes saw a failed helm {{ $labels.action }} (namespace {{ $labels.namespace }}): ' +
          'at least one release has been failing for over 30 minutes (failed CRs are retried with backoff capped at 1000 s, so a failing release fails at least every 17 minutes). ' +
          'The metric has no per-release label: the CRs whose ReleaseFailed condition is True are the failing ones.',
        runbook:
          'kubectl get events -A --field-selector type=Warning,reason={{ $labels.action | title }}Failed names the releases and the helm error; ' +
          "kubectl describe the CR (ReleaseFailed's message, status.failures counts the attempts); fix the values, the chart or the cluster state helm trips on.",
      },
    },
    {
      alert: 'HelmOperatorHelmStuck',
      expr: `max by (namespace, action) (helm_operator_helm_still_running{${job}}) > 0`,
      for: '15m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'helm {{ $labels.action }} runs have been hanging for 15 minutes.',
        description:
          'For 15 minutes there has always been a helm {{ $labels.action }} (namespace {{ $labels.namespace }}) running past its HelmStillRunning threshold: ' +
          'its release stays pending-{{ $labels.action }} and a worker is held. Hooks or --wait on objects that never become ready are the usual cause.',
        runbook:
          'kubectl get events -A --field-selector reason=HelmStillRunning names the releases; helm status and helm history show the pending revision; ' +
          "look at the chart's hook Jobs and the Pods it waits for; raise helmTimeout in watches.yaml if the chart is just slow. " +
          'A release left pending is recovered by the next reconcile (ReleaseRecovered event).',
      },
    },
    {
      alert: 'HelmOperatorWorkqueueGrowing',
      expr: [
        `sum by (namespace, name) (workqueue_depth{${job}}) > 10`,
        `and sum by (namespace, name) (deriv(workqueue_depth{${job}}[15m])) > 0`,
      ].join('\n'),
      for: '15m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'The work queue of {{ $labels.name }} holds {{ $value }} CRs and keeps growing.',
        description:
          'The work queue of {{ $labels.name }} (namespace {{ $labels.namespace }}) has held more than 10 CRs and grown for 15 minutes: CRs wait longer and longer for a reconcile.',
        runbook:
          'Compare controller_runtime_active_workers with controller_runtime_max_concurrent_reconciles; if every worker is busy, look for slow helm runs ' +
          '(helm_operator_helm_exec_duration_seconds, HelmOperatorHelmStuck), raise --max-concurrent-reconciles or the CPU limit, or shard (config/sharding).',
      },
    },
    {
      alert: 'HelmOperatorDriftCorrections',
      expr: `sum by (namespace, controller, kind) (increase(helm_operator_drift_corrections_total{${job}}[1h])) > 10`,
      for: '15m',
      labels: { severity: 'warning' },
      annotations: {
        summary: '{{ $labels.controller }} put back {{ $value | humanize }} {{ $labels.kind }} objects in an hour.',
        description:
          'Drift repair of {{ $labels.controller }} (namespace {{ $labels.namespace }}) has corrected more than 10 {{ $labels.kind }} objects per hour for 15 minutes: ' +
          'something keeps changing objects of its releases (another controller, an autoscaler against a chart that sets replicas, a person with kubectl).',
        runbook:
          'kubectl get events -A --field-selector reason=DriftCorrected names each object and field put back; kubectl get <object> --show-managed-fields shows the other writer; ' +
          'make the chart leave that field alone, or stop the other writer.',
      },
    },
  ];
}

/** The PrometheusRule manifest (namespace and name prefix come from config/default). */
export function prometheusRule(ctx: ScaffoldContext): string {
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { labels: { 'control-plane': CONTROL_PLANE }, name: 'controller-manager-alerts', namespace: 'system' },
    spec: { groups: [{ name: `${ctx.projectName}.rules`, rules: alertRules(ctx) }] },
  };
  return `# Alerts on the operator's own metrics (helm-operator-ts docs/operations.md: "Dashboards and alerts"). Every
# expression selects the metrics Service by its job label, job="${ctx.projectName}-${METRICS_SERVICE}":
# change it here if you change namePrefix in config/default. A Prometheus whose ruleSelector wants labels
# (kube-prometheus-stack: release=<its release name>) needs them added to metadata.labels.
${stringify(rule, { lineWidth: 0, indentSeq: false })}`;
}
