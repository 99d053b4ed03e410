// config/rbac at project level: the ServiceAccount, the base manager ClusterRole (which `create api` regenerates
// with the chart's rules), the manager's hand-written extra role, leader election and metrics roles and their
// bindings. Called by src/scaffold/init/init.ts and (for the extra role of older projects) rbac.ts. Pure text; never
// writes per-kind roles (those come from `create api`).

import type { FileSet } from '../files.js';
import { PATHS } from './context.js';

const RBAC_V1 = 'apiVersion: rbac.authorization.k8s.io/v1';

/** The files of config/rbac/kustomization.yaml's initial resources list, in order. */
export const RBAC_RESOURCES = [
  'service_account.yaml',
  'role.yaml',
  'role_binding.yaml',
  'extra_role.yaml',
  'extra_role_binding.yaml',
  'leader_election_role.yaml',
  'leader_election_role_binding.yaml',
  'metrics_auth_role.yaml',
  'metrics_auth_role_binding.yaml',
  'metrics_reader_role.yaml',
] as const;

const ALL_VERBS = `
  - get
  - list
  - watch
  - create
  - update
  - patch
  - delete`;

export function rbacFiles(): FileSet {
  return {
    [PATHS.rbacKustomization]: `# \`create api\` appends each kind's admin, editor and viewer roles to this list: helpers for the cluster
# admin to grant users access to the custom resources; the operator itself does not use them.
resources:
# All RBAC will be applied under this service account in
# the deployment namespace. You may comment out this resource
# if your manager will use a service account that exists at
# runtime. Be sure to update RoleBinding and ClusterRoleBinding
# subjects if changing service account names.
${RBAC_RESOURCES.map((r) => `- ${r}`).join('\n')}
`,
    'config/rbac/service_account.yaml': `apiVersion: v1
kind: ServiceAccount
metadata:
  name: controller-manager
  namespace: system
`,
    [PATHS.managerRole]: managerRole(),
    'config/rbac/role_binding.yaml': binding(
      'ClusterRoleBinding',
      'manager-rolebinding',
      'ClusterRole',
      'manager-role',
    ),
    ...extraRoleFiles(),
    'config/rbac/leader_election_role.yaml': `# permissions to do leader election.
${RBAC_V1}
kind: Role
metadata:
  name: leader-election-role
  namespace: system
rules:
- apiGroups:
  - ""
  resources:
  - configmaps
  verbs: ${ALL_VERBS}
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs: ${ALL_VERBS}
- apiGroups:
  - ""
  resources:
  - events
  verbs:
  - create
  - patch
`,
    'config/rbac/leader_election_role_binding.yaml': binding(
      'RoleBinding',
      'leader-election-rolebinding',
      'Role',
      'leader-election-role',
    ),
    'config/rbac/metrics_auth_role.yaml': `# Lets the manager check the bearer tokens of /metrics scrapers (used with --metrics-secure).
${RBAC_V1}
kind: ClusterRole
metadata:
  name: metrics-auth-role
rules:
- apiGroups:
  - authentication.k8s.io
  resources:
  - tokenreviews
  verbs:
  - create
- apiGroups:
  - authorization.k8s.io
  resources:
  - subjectaccessreviews
  verbs:
  - create
`,
    'config/rbac/metrics_auth_role_binding.yaml': binding(
      'ClusterRoleBinding',
      'metrics-auth-rolebinding',
      'ClusterRole',
      'metrics-auth-role',
    ),
    'config/rbac/metrics_reader_role.yaml': `# Bind this to whoever scrapes /metrics (e.g. Prometheus' service account).
${RBAC_V1}
kind: ClusterRole
metadata:
  name: metrics-reader
rules:
- nonResourceURLs:
  - "/metrics"
  verbs:
  - get
`,
  };
}

/**
 * The manager's hand-written rules, bound to its ServiceAccount beside the generated role: what the charts need
 * beyond what `generate rbac` derives. Neither `generate rbac` nor `create api` ever rewrites it.
 */
export function extraRoleFiles(): FileSet {
  return {
    [PATHS.extraRole]: `# The manager's hand-written rules. \`helm-operator generate rbac\` and \`create api\` rewrite role.yaml from the
# charts (rendered with their default values, each sample in config/samples and any --values files) and never touch
# this file: add here what the charts need beyond that, for example
#
# - apiGroups: ["networking.k8s.io"]
#   resources: ["ingresses"]
#   verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
#
# then run make deploy.
${RBAC_V1}
kind: ClusterRole
metadata:
  name: manager-extra-role
rules: []
`,
    [PATHS.extraRoleBinding]: binding(
      'ClusterRoleBinding',
      'manager-extra-rolebinding',
      'ClusterRole',
      'manager-extra-role',
    ),
  };
}

/** The base rules every helm operator needs; `create api` rewrites this file with the CRs' and charts' rules. */
function managerRole(): string {
  return `${RBAC_V1}
kind: ClusterRole
metadata:
  name: manager-role
rules:
##
## Base operator rules
##
# We need to manage Helm release secrets
- apiGroups:
  - ""
  resources:
  - secrets
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
# We need to create events on CRs about things happening during reconciliation
- apiGroups:
  - ""
  resources:
  - events
  verbs:
  - create
  - patch
# +kubebuilder:scaffold:rules
`;
}

function binding(kind: string, name: string, roleKind: string, role: string): string {
  return `${RBAC_V1}
kind: ${kind}
metadata:
  name: ${name}${kind === 'RoleBinding' ? '\n  namespace: system' : ''}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ${roleKind}
  name: ${role}
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: system
`;
}
