// The aggregating kustomizations: config/default (what `make deploy` applies, with the metrics Service),
// config/crd and config/samples (filled by `create api`) and config/manifests (the input of `make bundle`).
// Called by src/scaffold/init/init.ts. Pure text.

import type { FileSet } from '../files.js';
import { CONTROL_PLANE, METRICS_SERVICE, PATHS, type ScaffoldContext } from './context.js';

export function defaultFiles(ctx: ScaffoldContext): FileSet {
  return {
    [PATHS.defaultKustomization]: defaultKustomization(ctx),
    'config/default/metrics_service.yaml': `# Serves /metrics over HTTPS on port 8443 (the operator's --metrics-bind-address, --metrics-secure); callers
# need a token allowed by the metrics-reader ClusterRole (--metrics-require-rbac).
apiVersion: v1
kind: Service
metadata:
  labels:
    control-plane: ${CONTROL_PLANE}
  name: ${METRICS_SERVICE}
  namespace: system
spec:
  ports:
  - name: https
    port: 8443
    protocol: TCP
    targetPort: 8443
  selector:
    control-plane: ${CONTROL_PLANE}
`,
    [PATHS.crdKustomization]: `# This kustomization.yaml is not intended to be run by itself,
# since it depends on service name and namespace that are out of this kustomize package.
# It should be run by config/default
# \`create api\` adds bases/<group>.<domain>_<plural>.yaml for each kind.
resources: []
`,
    [PATHS.samplesKustomization]: `## Append samples you want in your CSV to this file as resources ##
# \`create api\` adds <group>_<version>_<kind>.yaml for each kind.
resources: []
`,
    [PATHS.manifestsKustomization]: `# These resources constitute the fully configured set of manifests
# used to generate the 'manifests/' directory in a bundle (make bundle).
resources:
- ../default
- ../samples
`,
  };
}

function defaultKustomization({ projectName }: ScaffoldContext): string {
  return `# Adds namespace to all resources.
namespace: ${projectName}-system

# Value of this field is prepended to the
# names of all resources, e.g. a deployment named
# "wordpress" becomes "alices-wordpress".
# Note that it should also match with the prefix (text before '-') of the namespace
# field above.
namePrefix: ${projectName}-

# Labels to add to all resources (not to selectors).
labels:
- pairs:
    app.kubernetes.io/name: ${JSON.stringify(projectName)}
    app.kubernetes.io/managed-by: kustomize

resources:
- ../crd
- ../rbac
- ../manager
# [METRICS] Expose the controller manager metrics service (HTTPS on port 8443, RBAC-protected).
- metrics_service.yaml
# [PROMETHEUS] To enable the prometheus monitor and alerts, uncomment the line below (needs the prometheus-operator CRDs).
#- ../prometheus
# [NETWORK POLICY] Protect the /metrics endpoint with a NetworkPolicy:
# only Pods in namespaces labelled 'metrics: enabled' will be able to gather the metrics.
#- ../network-policy
`;
}
