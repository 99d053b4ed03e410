// `cleanup PACKAGE`, as operator-sdk's: deletes the package's Subscription (no more installs or upgrades), then the
// CRDs its CSV owns (their CRs go with them while the operator still runs), the CSV (OLM's owner references take its
// Deployment, RBAC, InstallPlans), the ClusterRoles and bindings its InstallPlans made from the bundle, the
// CatalogSource, its registry pod, and the OperatorGroup once no Subscription is left. Called by cmd/run-bundle.ts.
import type { Clock } from '../core/clock.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import { waiter } from './installer.js';
import { catalogNameFor, getOrUndefined, type Kinds, kinds, ownedCrds, PackageNotFoundError } from './objects.js';
import { ANNOTATIONS } from './registry-pod.js';

export interface CleanupDeps {
  readonly kube: Pick<KubeClient, 'get' | 'list' | 'delete' | 'discover'>;
  readonly clock: Clock;
  readonly say: (line: string) => void;
}

export interface CleanupOptions {
  readonly package: string;
  readonly namespace: string;
  readonly timeoutMs: number;
  /** Delete the CSV's owned CRDs (and so every CR of them). @default true (operator-sdk's --delete-all) */
  readonly deleteCrds: boolean;
  /** Delete the namespace's OperatorGroups once no Subscription is left. @default true */
  readonly deleteOperatorGroups: boolean;
  readonly pollMs?: number;
}

/** What cleanup deleted, `kind/name` each. */
export async function cleanupPackage(o: CleanupOptions, d: CleanupDeps, signal: AbortSignal): Promise<string[]> {
  const k = await kinds(d.kube, signal);
  const ns = o.namespace;
  const wait = waiter(o, d, signal);
  const deleted: string[] = [];
  const remove = async (res: ApiResource, namespace: string, name: string, block: boolean) => {
    const what = `${res.kind.toLowerCase()} ${JSON.stringify(name)}`;
    const existed = await d.kube.delete(res, namespace, name, { signal, propagationPolicy: 'Background' }).then(
      () => true,
      (err: unknown) => {
        if (err instanceof NotFoundError) return false;
        throw err;
      },
    );
    if (existed) {
      d.say(`${what} deleted`);
      deleted.push(`${res.kind}/${name}`);
    }
    if (block) {
      await wait(`${what} to be deleted`, async () =>
        (await getOrUndefined(d.kube, res, namespace, name, signal)) === undefined ? undefined : 'still there',
      );
    }
  };

  const subs = (await d.kube.list(k.subscription, { namespace: ns, signal })).items;
  const sub = subs.find((s) => (s.spec as { name?: string } | undefined)?.name === o.package);
  const subSpec = (sub?.spec ?? {}) as { source?: string; sourceNamespace?: string };
  const csNamespace = subSpec.sourceNamespace || ns;
  const csName = subSpec.source || catalogNameFor(o.package);
  const st = (sub?.status ?? {}) as { installedCSV?: string; currentCSV?: string };
  const csvName = st.installedCSV || st.currentCSV;
  const csv = csvName ? await getOrUndefined(d.kube, k.csv, ns, csvName, signal) : undefined;
  const crds = csv === undefined ? [] : ownedCrds(csv);
  const source = await getOrUndefined(d.kube, k.catalogSource, csNamespace, csName, signal);
  if (sub === undefined && csv === undefined && source === undefined) {
    throw new PackageNotFoundError(`package ${JSON.stringify(o.package)} not found in namespace ${ns}`);
  }

  // Read before the Subscription goes (its InstallPlans go with it): the ClusterRoles and bindings OLM made.
  const bundleClusterObjects = csvName ? await clusterSteps(d, k, ns, [csvName, replacesOf(csv)], signal) : [];
  if (sub !== undefined) await remove(k.subscription, ns, sub.metadata.name ?? '', false);
  if (o.deleteCrds) {
    for (const crd of crds) await remove(k.crd, '', crd, true);
  } else {
    d.say('Skipping CRD deletion');
  }
  if (csv !== undefined) await remove(k.csv, ns, csvName ?? '', true);
  // The cluster-scoped objects OLM made from the bundle (the scaffold's metrics-reader and admin/editor/viewer
  // ClusterRoles) outlive the CSV; unlike operator-sdk's cleanup, these go too.
  for (const step of bundleClusterObjects) {
    await remove(step.kind === 'ClusterRole' ? k.clusterRole : k.clusterRoleBinding, '', step.name, true);
  }
  if (source !== undefined) {
    await remove(k.catalogSource, csNamespace, csName, true);
    const pod = registryPodOf(source);
    if (pod) await remove(k.pod, csNamespace, pod, true);
  }
  if (o.deleteOperatorGroups) {
    const left = (await d.kube.list(k.subscription, { namespace: ns, signal })).items;
    if (left.length === 0) {
      for (const og of (await d.kube.list(k.operatorGroup, { namespace: ns, signal })).items) {
        await remove(k.operatorGroup, ns, og.metadata.name ?? '', false);
      }
    }
  } else {
    d.say('Skipping Operator Groups deletion');
  }
  d.say(`${o.package} uninstalled`);
  return deleted;
}

const registryPodOf = (source: KubeObject) => source.metadata.annotations?.[ANNOTATIONS.registryPod];

const replacesOf = (csv: KubeObject | undefined) => (csv?.spec as { replaces?: string } | undefined)?.replaces;

/** The ClusterRoles and ClusterRoleBindings the InstallPlans of `csvs` created (their steps' resources). */
async function clusterSteps(
  d: CleanupDeps,
  k: Kinds,
  ns: string,
  csvs: readonly (string | undefined)[],
  signal: AbortSignal,
): Promise<{ kind: string; name: string }[]> {
  const plans = (await d.kube.list(k.installPlan, { namespace: ns, signal })).items;
  const out = new Map<string, { kind: string; name: string }>();
  for (const plan of plans) {
    const names =
      (plan.spec as { clusterServiceVersionNames?: string[] } | undefined)?.clusterServiceVersionNames ?? [];
    if (!names.some((n) => csvs.includes(n))) continue;
    const steps = (plan.status as { plan?: PlanStep[] } | undefined)?.plan ?? [];
    for (const { resource: r } of steps) {
      const kind = r?.kind ?? '';
      if ((kind === 'ClusterRole' || kind === 'ClusterRoleBinding') && r?.name) {
        out.set(`${kind}/${r.name}`, { kind, name: r.name });
      }
    }
  }
  return [...out.values()];
}
interface PlanStep {
  resource?: { kind?: string; name?: string; group?: string };
}
