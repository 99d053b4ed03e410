// What every scaffold template receives, and the project paths that `init` and `create api` agree on.
// Imported by the templates, by src/scaffold/init/init.ts and by create api's modules. Data only: no I/O, no logic.

/** The answers to `helm-operator init`, already validated. */
export interface ScaffoldContext {
  /** DNS-1123 subdomain: API groups are <group>.<domain>. */
  readonly domain: string;
  /** DNS-1123 label: name prefix, namespace <projectName>-system, leader election id. */
  readonly projectName: string;
}

/** Where the scaffold puts things, relative to the project root (a contract with `create api`). */
export const PATHS = {
  project: 'PROJECT',
  watches: 'watches.yaml',
  charts: 'charts',
  dockerfile: 'Dockerfile',
  makefile: 'Makefile',
  crdKustomization: 'config/crd/kustomization.yaml',
  crdBases: 'config/crd/bases',
  samplesKustomization: 'config/samples/kustomization.yaml',
  samples: 'config/samples',
  rbacKustomization: 'config/rbac/kustomization.yaml',
  rbac: 'config/rbac',
  managerRole: 'config/rbac/role.yaml',
  /** The manager's hand-written rules: scaffolded empty, never rewritten by `generate rbac` or `create api`. */
  extraRole: 'config/rbac/extra_role.yaml',
  extraRoleBinding: 'config/rbac/extra_role_binding.yaml',
  managerDeployment: 'config/manager/manager.yaml',
  defaultKustomization: 'config/default/kustomization.yaml',
  manifestsKustomization: 'config/manifests/kustomization.yaml',
} as const;

/** The `control-plane` label value that ties the Deployment, its Service, monitor and network policy together. */
export const CONTROL_PLANE = 'controller-manager';

/** The name (before the kustomize namePrefix) of the Service in front of the metrics port. */
export const METRICS_SERVICE = 'controller-manager-metrics-service';
