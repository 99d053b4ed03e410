// What an in-process uninstall of one release does, decided as helm's action.Uninstall decides it: the objects of its
// newest record in helm's uninstall order, in waves of one kind (helm deletes a kind's objects at once, kinds in
// turn), those helm leaves alone (any resource-policy), or why the release must go to `helm uninstall` instead.
// Pure; called by uninstaller.ts (whose `takes` also keeps the releases it takes out of helm's uninstall batches).
import { helmUninstallSkips, type ManifestObject, splitManifest } from '../helm/manifest.js';
import type { Release } from '../helm/types.js';

/** helm 3's releaseutil.UninstallOrder; a kind not listed goes last, unknown kinds alphabetically. */
const HELM3_ORDER = [
  'APIService',
  'Ingress',
  'IngressClass',
  'Service',
  'CronJob',
  'Job',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'Pod',
  'DaemonSet',
  'RoleBindingList',
  'RoleBinding',
  'RoleList',
  'Role',
  'ClusterRoleBindingList',
  'ClusterRoleBinding',
  'ClusterRoleList',
  'ClusterRole',
  'CustomResourceDefinition',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'ConfigMap',
  'SecretList',
  'Secret',
  'ServiceAccount',
  'PodDisruptionBudget',
  'PodSecurityPolicy',
  'LimitRange',
  'ResourceQuota',
  'NetworkPolicy',
  'Namespace',
  'PriorityClass',
];

/** helm 4's: webhooks first, so that a validating one cannot block the removal of the rest. */
const HELM4_ORDER = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', ...HELM3_ORDER];

/** The hook events `helm uninstall` runs (unless --no-hooks). */
const DELETE_HOOKS = new Set(['pre-delete', 'post-delete']);

export type UninstallPlan =
  | {
      readonly inProcess: true;
      /** The objects to delete: each wave's at once, the waves in turn. Empty when the release is uninstalled already. */
      readonly waves: readonly (readonly ManifestObject[])[];
      /** The objects helm's uninstall leaves in place (a `helm.sh/resource-policy` annotation). */
      readonly kept: readonly ManifestObject[];
    }
  | {
      readonly inProcess: false;
      /** Why `helm uninstall` runs instead, for the debug log. */
      readonly reason: string;
    };

export interface PlanOptions {
  /** The CR's uninstall-disable-hooks annotation (`--no-hooks`). */
  readonly disableHooks: boolean;
  /** The major version of the helm whose uninstall this stands in for (its order differs). */
  readonly helmMajor: number;
}

/** True when `helm uninstall` would run hooks of `newest` (pre-delete, post-delete): only helm runs them. */
export function hasDeleteHooksToRun(newest: Release, disableHooks: boolean): boolean {
  return !disableHooks && (newest.hookEvents?.some((e) => DELETE_HOOKS.has(e)) ?? false);
}

/** The plan for uninstalling `newest`, the release's newest record. */
export function planUninstall(newest: Release, o: PlanOptions): UninstallPlan {
  if (hasDeleteHooksToRun(newest, o.disableHooks)) {
    return { inProcess: false, reason: 'the release has delete hooks to run' };
  }
  // helm purges the records of an uninstalled (kept) release without touching its objects.
  if (newest.info.status === 'uninstalled') return { inProcess: true, waves: [], kept: [] };
  let objects: ManifestObject[];
  try {
    objects = splitManifest(newest.manifest);
  } catch {
    return { inProcess: false, reason: 'its manifest cannot be read here; helm reports what it makes of it' };
  }
  const kept = objects.filter(helmUninstallSkips);
  const order = o.helmMajor >= 4 ? HELM4_ORDER : HELM3_ORDER;
  return { inProcess: true, waves: waves(unique(objects.filter((x) => !helmUninstallSkips(x))), order), kept };
}

/** Each object once (a manifest may name one twice; helm's second delete would find it gone). */
function unique(objects: readonly ManifestObject[]): ManifestObject[] {
  const seen = new Set<string>();
  return objects.filter((x) => {
    const key = `${x.apiVersion} ${x.kind} ${x.metadata.namespace ?? ''} ${x.metadata.name}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
}

/** helm's stable sort by kind (releaseutil's lessByKind), cut into runs of one kind. */
function waves(objects: readonly ManifestObject[], order: readonly string[]): ManifestObject[][] {
  const rank = new Map(order.map((k, i) => [k, i]));
  const sorted = [...objects].sort((a, b) => {
    const [x, y] = [rank.get(a.kind), rank.get(b.kind)];
    if (x === undefined && y === undefined) return a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return x - y;
  });
  const out: ManifestObject[][] = [];
  for (const obj of sorted) {
    const last = out.at(-1);
    if (last?.[0]?.kind === obj.kind) last.push(obj);
    else out.push([obj]);
  }
  return out;
}
