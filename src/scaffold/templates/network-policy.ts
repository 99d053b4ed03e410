// config/network-policy: a NetworkPolicy that admits /metrics scrapes (port 8080) only from namespaces labelled
// `metrics: enabled`. Called by src/scaffold/init/init.ts; commented out in config/default by default. Pure text.

import type { FileSet } from '../files.js';
import { CONTROL_PLANE } from './context.js';

export function networkPolicyFiles(): FileSet {
  return {
    'config/network-policy/kustomization.yaml': `resources:
- allow-metrics-traffic.yaml
`,
    'config/network-policy/allow-metrics-traffic.yaml': `# This NetworkPolicy allows ingress traffic
# with Pods running on namespaces labeled with 'metrics: enabled'. Only Pods on those
# namespaces are able to gather data from the metrics endpoint.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  labels:
    control-plane: ${CONTROL_PLANE}
  name: allow-metrics-traffic
  namespace: system
spec:
  podSelector:
    matchLabels:
      control-plane: ${CONTROL_PLANE}
  policyTypes:
  - Ingress
  ingress:
  # This allows ingress traffic from any namespace with the label metrics: enabled
  - from:
    - namespaceSelector:
        matchLabels:
          metrics: enabled # Only from namespaces with this label
    ports:
    - port: 8443
      protocol: TCP
`,
  };
}
