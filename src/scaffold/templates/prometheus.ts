// config/prometheus: a prometheus-operator ServiceMonitor for the metrics Service (HTTPS, port "https", with the
// Prometheus ServiceAccount's token; bind it to the metrics-reader ClusterRole) and the alerts (prometheus-rules.ts).
// Called by src/scaffold/init/init.ts; commented out in config/default until the user enables it. Pure text.

import type { FileSet } from '../files.js';
import { CONTROL_PLANE, type ScaffoldContext } from './context.js';
import { prometheusRule } from './prometheus-rules.js';

export function prometheusFiles(ctx: ScaffoldContext): FileSet {
  return {
    'config/prometheus/kustomization.yaml': `resources:
- monitor.yaml
# Alerts on the operator's metrics (a PrometheusRule); remove this line to keep only the ServiceMonitor.
- alerts.yaml
`,
    'config/prometheus/alerts.yaml': prometheusRule(ctx),
    'config/prometheus/monitor.yaml': `# Prometheus Monitor Service (Metrics)
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  labels:
    control-plane: ${CONTROL_PLANE}
  name: controller-manager-metrics-monitor
  namespace: system
spec:
  endpoints:
  - path: /metrics
    port: https # the metrics Service's port name
    scheme: https
    bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
    tlsConfig:
      # The operator's certificate is self-signed unless --metrics-cert-path provides one (then verify it here).
      insecureSkipVerify: true
  selector:
    matchLabels:
      control-plane: ${CONTROL_PLANE}
`,
  };
}
