// config/manager: the operator's Namespace and Deployment (operator-sdk's layout, sized and secured for a Node
// operator that runs helm). Called by src/scaffold/init/init.ts. Pure text: never reads or writes files.

import type { FileSet } from '../files.js';
import { CONTROL_PLANE, PATHS, type ScaffoldContext } from './context.js';

export function managerFiles(ctx: ScaffoldContext): FileSet {
  return {
    'config/manager/kustomization.yaml': `resources:
- manager.yaml
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
images:
- name: controller
  newName: controller
  newTag: latest
`,
    [PATHS.managerDeployment]: managerYaml(ctx),
  };
}

function managerYaml({ projectName }: ScaffoldContext): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  labels:
    control-plane: ${CONTROL_PLANE}
  name: system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
  labels:
    control-plane: ${CONTROL_PLANE}
spec:
  selector:
    matchLabels:
      control-plane: ${CONTROL_PLANE}
  replicas: 1
  template:
    metadata:
      annotations:
        kubectl.kubernetes.io/default-container: manager
      labels:
        control-plane: ${CONTROL_PLANE}
    spec:
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
      # No command: the image's ENTRYPOINT is "helm-operator run --watches-file=./watches.yaml"; these args follow it.
      - args:
        - --leader-elect
        - --leader-election-id=${projectName}
        - --health-probe-bind-address=:8081
        # /metrics over HTTPS (a self-signed certificate unless --metrics-cert-path names one), and only for
        # tokens allowed to get /metrics (TokenReview + SubjectAccessReview): the metrics-reader ClusterRole.
        - --metrics-bind-address=:8443
        - --metrics-secure
        - --metrics-require-rbac
        image: controller:latest
        name: manager
        env:
        # helm's homes, values files, discovery cache (KUBECACHEDIR) and the post-renderer's FIFOs live here.
        - name: TMPDIR
          value: /tmp
        # Unset, the operator watches every namespace (as operator-sdk's scaffold). To watch only some, set a
        # comma-separated list (or the operator's own namespace, below) and grant the manager Role there.
        #- name: WATCH_NAMESPACE
        #  valueFrom:
        #    fieldRef:
        #      fieldPath: metadata.namespace
        ports:
        - containerPort: 8443
          name: metrics
          protocol: TCP
        - containerPort: 8081
          name: probes
          protocol: TCP
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop:
            - "ALL"
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8081
          initialDelaySeconds: 15
          periodSeconds: 20
        readinessProbe:
          httpGet:
            path: /readyz
            port: 8081
          initialDelaySeconds: 5
          periodSeconds: 10
        # A Node.js operator that runs helm child processes needs more than a Go operator's 64Mi: raise the memory
        # limit for charts with many or large objects, or many custom resources.
        resources:
          limits:
            cpu: "1"
            memory: 512Mi
          requests:
            cpu: 50m
            memory: 128Mi
        volumeMounts:
        - name: tmp
          mountPath: /tmp
      serviceAccountName: controller-manager
      # On SIGTERM the operator starts no reconcile and lets the running helm finish for up to
      # --graceful-shutdown-timeout (5m), then stops it (SIGKILL 30 s later): 360 s covers both, so a rolling
      # update or a drain never kills helm in the middle of an install or upgrade (the release left pending).
      terminationGracePeriodSeconds: 360
      volumes:
      # The root filesystem is read-only; everything the operator writes goes to this temporary folder.
      - name: tmp
        emptyDir: {}
`;
}
