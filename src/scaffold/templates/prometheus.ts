// config/prometheus: a prometheus-operator ServiceMonitor for the metrics Service (plain HTTP, port "http").
// Called by src/scaffold/init.ts; commented out in config/default until the user enables it. Pure text.

import type { FileSet } from '../files.js';
import { CONTROL_PLANE } from './context.js';

export function prometheusFiles(): FileSet {
  return {
    'config/prometheus/kustomization.yaml': `resources:
- monitor.yaml
`,
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
    port: http # the metrics Service's port name
    scheme: http
  selector:
    matchLabels:
      control-plane: ${CONTROL_PLANE}
`,
  };
}
