// config/sharding: an optional overlay of config/default that turns the manager into a 3-replica StatefulSet with
// --shard-count=3, each replica's shard being its StatefulSet ordinal (POD_NAME). Called by src/scaffold/init/init.ts;
// nothing references it from config/default (build it on its own). Pure text; never changes the base files.

import type { FileSet } from '../files.js';
import { CONTROL_PLANE, METRICS_SERVICE, type ScaffoldContext } from './context.js';

/** How many replicas, and shards, the overlay runs. */
export const SHARDS = 3;

export function shardingFiles(ctx: ScaffoldContext): FileSet {
  return {
    'config/sharding/kustomization.yaml': `# [SHARDING] An optional overlay of config/default for CRs that outgrow one replica: the manager becomes a StatefulSet
# of ${SHARDS} replicas, each with --shard-count=${SHARDS} and its shard from its pod name (the StatefulSet ordinal: POD_NAME,
# ...-0, ...-1, ...-2). Each replica reconciles the CRs whose uid hashes to the shards whose Lease
# (<leader-election-id>-shard-<i>, in the operator's namespace) it holds; a dead replica's shard is taken over when its
# Lease expires and handed back when it returns. Keep replicas and --shard-count equal. Build it with
# \`kubectl kustomize config/sharding\` (set the image as for config/default).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../default
patches:
- target:
    group: apps
    version: v1
    kind: Deployment
    name: ${CONTROL_PLANE}
  options:
    allowKindChange: true
  patch: |-
    - op: replace
      path: /kind
      value: StatefulSet
    - op: replace
      path: /spec/replicas
      value: ${SHARDS}
    # All replicas start at once: each takes its own shard; none waits for the one before it to be ready.
    - op: add
      path: /spec/podManagementPolicy
      value: Parallel
    - op: add
      path: /spec/serviceName
      value: ${ctx.projectName}-${METRICS_SERVICE}
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --shard-count=${SHARDS}
    - op: add
      path: /spec/template/spec/containers/0/env/-
      value:
        name: POD_NAME
        valueFrom:
          fieldRef:
            fieldPath: metadata.name
`,
  };
}
