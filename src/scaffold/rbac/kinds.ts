// The standard Kubernetes kinds (and a few ubiquitous third-party ones) with their resource name and scope, so that
// `create api` and `generate rbac` can turn a rendered object's apiVersion + kind into an RBAC rule without a
// cluster. Also English plurals for new kinds. Pure data and string functions; never guesses a kind it does not know.

/** Where a kind lives in the API: what an RBAC rule names. */
export interface KindInfo {
  /** API group; '' is the core group. */
  readonly group: string;
  readonly kind: string;
  /** The resource name (lowercase plural), as in RBAC rules. */
  readonly resource: string;
  readonly namespaced: boolean;
}

type Row = readonly [kind: string, resource: string, namespaced: boolean];

const TABLE: Readonly<Record<string, readonly Row[]>> = {
  '': [
    ['ConfigMap', 'configmaps', true],
    ['Endpoints', 'endpoints', true],
    ['Event', 'events', true],
    ['LimitRange', 'limitranges', true],
    ['Namespace', 'namespaces', false],
    ['Node', 'nodes', false],
    ['PersistentVolume', 'persistentvolumes', false],
    ['PersistentVolumeClaim', 'persistentvolumeclaims', true],
    ['Pod', 'pods', true],
    ['PodTemplate', 'podtemplates', true],
    ['ReplicationController', 'replicationcontrollers', true],
    ['ResourceQuota', 'resourcequotas', true],
    ['Secret', 'secrets', true],
    ['Service', 'services', true],
    ['ServiceAccount', 'serviceaccounts', true],
  ],
  apps: [
    ['ControllerRevision', 'controllerrevisions', true],
    ['DaemonSet', 'daemonsets', true],
    ['Deployment', 'deployments', true],
    ['ReplicaSet', 'replicasets', true],
    ['StatefulSet', 'statefulsets', true],
  ],
  batch: [
    ['CronJob', 'cronjobs', true],
    ['Job', 'jobs', true],
  ],
  autoscaling: [['HorizontalPodAutoscaler', 'horizontalpodautoscalers', true]],
  policy: [['PodDisruptionBudget', 'poddisruptionbudgets', true]],
  'networking.k8s.io': [
    ['Ingress', 'ingresses', true],
    ['IngressClass', 'ingressclasses', false],
    ['NetworkPolicy', 'networkpolicies', true],
  ],
  'rbac.authorization.k8s.io': [
    ['ClusterRole', 'clusterroles', false],
    ['ClusterRoleBinding', 'clusterrolebindings', false],
    ['Role', 'roles', true],
    ['RoleBinding', 'rolebindings', true],
  ],
  'storage.k8s.io': [
    ['CSIDriver', 'csidrivers', false],
    ['CSINode', 'csinodes', false],
    ['StorageClass', 'storageclasses', false],
    ['VolumeAttachment', 'volumeattachments', false],
  ],
  'scheduling.k8s.io': [['PriorityClass', 'priorityclasses', false]],
  'coordination.k8s.io': [['Lease', 'leases', true]],
  'discovery.k8s.io': [['EndpointSlice', 'endpointslices', true]],
  'admissionregistration.k8s.io': [
    ['MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
    ['ValidatingAdmissionPolicy', 'validatingadmissionpolicies', false],
    ['ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', false],
    ['ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ],
  'apiextensions.k8s.io': [['CustomResourceDefinition', 'customresourcedefinitions', false]],
  'apiregistration.k8s.io': [['APIService', 'apiservices', false]],
  'events.k8s.io': [['Event', 'events', true]],
  'node.k8s.io': [['RuntimeClass', 'runtimeclasses', false]],
  'certificates.k8s.io': [['CertificateSigningRequest', 'certificatesigningrequests', false]],
  'flowcontrol.apiserver.k8s.io': [
    ['FlowSchema', 'flowschemas', false],
    ['PriorityLevelConfiguration', 'prioritylevelconfigurations', false],
  ],
  // Not part of Kubernetes, but rendered by so many charts (prometheus-operator's kinds) that they are built in.
  'monitoring.coreos.com': [
    ['PodMonitor', 'podmonitors', true],
    ['PrometheusRule', 'prometheusrules', true],
    ['ServiceMonitor', 'servicemonitors', true],
  ],
};

const BY_GROUP_KIND: ReadonlyMap<string, KindInfo> = new Map(
  Object.entries(TABLE).flatMap(([group, rows]) =>
    rows.map(([kind, resource, namespaced]): [string, KindInfo] => [
      `${group}/${kind}`,
      { group, kind, resource, namespaced },
    ]),
  ),
);

/** The API group of an apiVersion: `v1` → '', `apps/v1` → 'apps'. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version part of an apiVersion: `apps/v1` → 'v1'. */
export function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
}

/** The built-in entry for a group and kind (any version), or undefined when the table does not have it. */
export function builtinKind(group: string, kind: string): KindInfo | undefined {
  return BY_GROUP_KIND.get(`${group}/${kind}`);
}

/** Every built-in entry, for tests and documentation. */
export function builtinKinds(): KindInfo[] {
  return [...BY_GROUP_KIND.values()];
}

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

/**
 * The lowercase English plural of a kind, as a CRD's `names.plural`: `Nginx` → `nginxes`, `Policy` → `policies`,
 * `Key` → `keys`, `Memcached` → `memcacheds`. Rules: -s, -x, -z, -ch, -sh take -es; a consonant + y becomes -ies;
 * everything else takes -s.
 */
export function pluralize(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (lower.endsWith('y') && lower.length > 1 && !VOWELS.has(lower.charAt(lower.length - 2))) {
    return `${lower.slice(0, -1)}ies`;
  }
  return `${lower}s`;
}
