// Derives the manager ClusterRole's rules: what the operator itself needs (its CRs, helm's release Secrets, Events,
// Namespaces) plus exact verbs on every kind a chart renders, looked up in kinds.ts, the chart's own CRDs, or the
// cluster. Called by rbac.ts. Pure apart from the optional discover call; never falls back to broad rules.
import { isRecord } from '../../core/guards.js';
import { manifestObjects, splitManifest } from '../../helm/manifest.js';
import { unlessNotFound } from '../../kube/errors.js';
import type { KubeClient } from '../../kube/types.js';
import { type UnknownKind, UnknownKindError } from '../errors.js';
import { builtinKind, groupOf, type KindInfo, versionOf } from './kinds.js';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** A values file's flag as the user would give it again (`--values=values/ingress.yaml`), or a chart's label. */
export type RuleOrigin = { readonly values: string } | { readonly fallback: string };

/** Rules of one origin; no origin: derived from the operator's needs, charts' defaults and samples, or hand-written. */
export interface RuleSection {
  readonly origin?: RuleOrigin | undefined;
  readonly rules: readonly PolicyRule[];
}

/**
 * Verbs on every kind a chart renders: helm creates, reads, patches (helm 4: server-side apply), updates and deletes
 * them; the dependent watches list and watch them; drift repair patches them. Never `*`.
 */
export const CHART_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] as const;

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * Asks a reachable cluster (discovery) where a kind lives; undefined when it does not serve it. `serverVersion`, when
 * present, is the cluster's `/version` gitVersion: charts are rendered for it (`helm template --kube-version`).
 */
export type DiscoverKind = ((
  gvk: GroupVersionKind,
  signal: AbortSignal,
) => Promise<{ readonly resource: string; readonly namespaced: boolean } | undefined>) & {
  readonly serverVersion?: (signal: AbortSignal) => Promise<string>;
};

/**
 * A DiscoverKind over the kube client's discovery (for the composition root, when a cluster is reachable): a kind
 * or group/version the server does not serve is undefined; any other failure (unreachable, forbidden) is thrown.
 */
export function discoverFromKube(kube: Pick<KubeClient, 'discover' | 'serverVersion'>): DiscoverKind {
  const discover = async (gvk: GroupVersionKind, signal: AbortSignal) => {
    const found = await unlessNotFound(kube.discover(gvk, { signal }));
    return found && { resource: found.plural, namespaced: found.namespaced };
  };
  return Object.assign(discover, {
    serverVersion: async (signal: AbortSignal) => (await kube.serverVersion({ signal })).gitVersion,
  });
}

export interface ChartRulesInput {
  /** The chart as the user knows it (`charts/nginx`), for messages. */
  readonly chart: string;
  /** `helm template --include-crds` output. */
  readonly manifest: string;
  readonly discover?: DiscoverKind | undefined;
}

export interface ChartRulesResult {
  readonly rules: PolicyRule[];
  readonly warnings: string[];
  /** `<apiVersion> <kind>` of every object the rules cover, for reports. */
  readonly kinds: string[];
}

const TEST_HOOKS = new Set(['test', 'test-success', 'test-failure']);

/**
 * The operator's own needs, whatever the charts: helm's release storage and Events. (operator-sdk also grants
 * `namespaces get`, which nothing here uses; the integration test shows the Role is enough without it.)
 */
export function baseRules(): PolicyRule[] {
  return [
    { apiGroups: [''], resources: ['secrets'], verbs: [...CHART_VERBS] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  ];
}

/**
 * The values-from annotation: the operator GETs the ConfigMaps and Secrets CRs reference, and lists and watches them
 * (metadata only) in the namespaces where some CR references one. Only with `--values-from` (create api, generate
 * rbac): without it ConfigMaps are granted only when a chart renders them (Secrets always are: helm stores releases
 * in them, see baseRules).
 */
export function valuesFromRules(): PolicyRule[] {
  return [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] }];
}

/**
 * operator-sdk's default rules for a chart it cannot render (its `manager_role.go`): the usual workload kinds with
 * every chart verb. Written only for such a chart, marked with a comment telling the user to review them.
 */
export function defaultChartRules(): PolicyRule[] {
  return [
    {
      apiGroups: [''],
      resources: [
        'configmaps',
        'endpoints',
        'events',
        'persistentvolumeclaims',
        'pods',
        'secrets',
        'services',
        'services/finalizers',
      ],
      verbs: [...CHART_VERBS],
    },
    {
      apiGroups: ['apps'],
      resources: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
      verbs: [...CHART_VERBS],
    },
  ];
}

/** Kinds whose pods the operator reads (get, list) to say why one is not ready: Ready names a pod's waiting reason. */
const POD_OWNERS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet', 'batch/Job']);

/** Read access to pods: a LIST by a not-ready workload's selector (dependents/pod-causes.ts). */
export function podReadRule(): PolicyRule {
  return { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };
}

/** What the operator does to its CRs: read and watch them, patch finalizers, update (never create or delete). */
export const CR_VERBS = ['get', 'list', 'patch', 'update', 'watch'] as const;

/** The rules on a watched kind: the CRs, their status (conditions, deployedRelease), their finalizers. */
export function customResourceRules(group: string, plural: string): PolicyRule[] {
  return [
    { apiGroups: [group], resources: [plural], verbs: [...CR_VERBS] },
    { apiGroups: [group], resources: [`${plural}/status`], verbs: ['get', 'patch', 'update'] },
    // Setting an ownerReference with blockOwnerDeletion needs it where OwnerReferencesPermissionEnforcement is on.
    { apiGroups: [group], resources: [`${plural}/finalizers`], verbs: ['update'] },
  ];
}

/**
 * Rules for every object of a rendered chart (test hooks excluded: the operator never runs `helm test`). Throws
 * UnknownKindError listing every kind found neither in kinds.ts, nor in the chart's CRDs, nor through `discover`.
 */
export async function chartRules(input: ChartRulesInput, signal: AbortSignal): Promise<ChartRulesResult> {
  const full = manifestObjects(input.manifest);
  const crds = chartCrds(full);
  const rules: PolicyRule[] = [];
  const unknown = new Map<string, UnknownKind>();
  const kinds = new Set<string>();
  for (const obj of splitManifest(input.manifest)) {
    if (isTestHook(obj.annotations)) continue;
    const group = groupOf(obj.apiVersion);
    const key = `${obj.apiVersion} ${obj.kind}`;
    if (kinds.has(key) || unknown.has(key)) continue;
    const gvk = { group, version: versionOf(obj.apiVersion), kind: obj.kind };
    const info =
      builtinKind(group, obj.kind) ?? crds.get(`${group}/${obj.kind}`) ?? (await input.discover?.(gvk, signal));
    if (info === undefined) {
      unknown.set(key, { apiVersion: obj.apiVersion, kind: obj.kind, source: obj.source });
      continue;
    }
    kinds.add(key);
    rules.push({ apiGroups: [group], resources: [info.resource], verbs: [...CHART_VERBS] });
  }
  if (unknown.size > 0) throw new UnknownKindError(input.chart, [...unknown.values()], input.discover !== undefined);
  if ([...kinds].some((k) => POD_OWNERS.has(`${groupOf(k.split(' ')[0] ?? '')}/${k.split(' ')[1] ?? ''}`))) {
    rules.push(podReadRule());
  }
  const warnings: string[] = [];
  const rbac = rbacObjectRules(full);
  if (rbac.length > 0) {
    rules.push(...rbac);
    warnings.push(
      `${input.chart} creates RBAC objects: Kubernetes lets the operator create a Role or binding only if it holds ` +
        'every permission granted, or has the escalate (roles) and bind (bindings) verbs; the manager role gets ' +
        'escalate/bind on the role kinds the chart uses, which lets the operator grant any permission. To avoid that, ' +
        "remove those verbs from config/rbac/role.yaml and add the chart roles' own rules instead",
    );
  }
  return { rules, warnings, kinds: [...kinds].sort() };
}

function isTestHook(annotations: Readonly<Record<string, string>> | undefined): boolean {
  const hooks = annotations?.['helm.sh/hook'];
  if (hooks === undefined) return false;
  const list = hooks
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  return list.length > 0 && list.every((h) => TEST_HOOKS.has(h));
}

/** The kinds defined by CustomResourceDefinitions in the rendered chart (its crds/ files and templates). */
function chartCrds(objects: readonly Record<string, unknown>[]): Map<string, KindInfo> {
  const out = new Map<string, KindInfo>();
  for (const obj of objects) {
    if (obj.kind !== 'CustomResourceDefinition' || groupOf(String(obj.apiVersion)) !== 'apiextensions.k8s.io') continue;
    const spec = isRecord(obj.spec) ? obj.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    if (typeof spec.group !== 'string' || typeof names.kind !== 'string' || typeof names.plural !== 'string') continue;
    out.set(`${spec.group}/${names.kind}`, {
      group: spec.group,
      kind: names.kind,
      resource: names.plural,
      namespaced: spec.scope !== 'Cluster',
    });
  }
  return out;
}

/** `escalate` on each role kind the chart creates, `bind` on each role kind its bindings refer to. */
function rbacObjectRules(objects: readonly Record<string, unknown>[]): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const group = 'rbac.authorization.k8s.io';
  for (const obj of objects) {
    if (groupOf(String(obj.apiVersion)) !== group) continue;
    if (obj.kind === 'Role') rules.push({ apiGroups: [group], resources: ['roles'], verbs: ['escalate'] });
    if (obj.kind === 'ClusterRole')
      rules.push({ apiGroups: [group], resources: ['clusterroles'], verbs: ['escalate'] });
    if (obj.kind === 'RoleBinding' || obj.kind === 'ClusterRoleBinding') {
      const ref = isRecord(obj.roleRef) ? obj.roleRef.kind : undefined;
      const resource = ref === 'Role' ? 'roles' : 'clusterroles';
      rules.push({ apiGroups: [group], resources: [resource], verbs: ['bind'] });
    }
  }
  return rules;
}

/**
 * The union of `rules` in a deterministic shape: verbs unioned per (group, resource), then resources with the same
 * verbs grouped into one rule per API group; groups sorted ('' first), resources and verbs sorted.
 */
export function mergeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const grants = new Map<string, Map<string, Set<string>>>();
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      const byResource = grants.get(group) ?? new Map<string, Set<string>>();
      grants.set(group, byResource);
      for (const resource of rule.resources) {
        const verbs = byResource.get(resource) ?? new Set<string>();
        byResource.set(resource, verbs);
        for (const verb of rule.verbs) verbs.add(verb);
      }
    }
  }
  const out: PolicyRule[] = [];
  for (const group of [...grants.keys()].sort()) {
    const byVerbs = new Map<string, string[]>();
    for (const [resource, verbs] of grants.get(group) ?? []) {
      const key = [...verbs].sort().join(',');
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
    }
    const groupRules = [...byVerbs].map(([verbs, resources]) => ({
      apiGroups: [group],
      resources: resources.sort(),
      verbs: verbs.split(','),
    }));
    out.push(...groupRules.sort((a, b) => compare(a.resources[0] ?? '', b.resources[0] ?? '')));
  }
  return out;
}

/** Code-unit order: the same on every machine, whatever its locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
