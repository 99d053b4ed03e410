// OLM's objects as `run bundle`, `run bundle-upgrade` and `cleanup PACKAGE` make and read them (operator-sdk's
// names: `<package>-catalog`, `<csv>-sub`, `operator-sdk-og`), the install mode flag and the OperatorGroup targets it
// gives. Pure but for `kinds`/`getOrUndefined`, which take the kube client; called by run-bundle.ts and cleanup-package.ts.
import { ConfigError, OperatorError } from '../core/errors.js';
import { NotFoundError } from '../kube/errors.js';
import type { ApiResource, GroupVersionKind, KubeClient, KubeObject } from '../kube/types.js';

export class RunBundleError extends OperatorError {
  readonly code = 'OLM_RUN_BUNDLE_INVALID';
}
export class PackageNotFoundError extends OperatorError {
  readonly code = 'OLM_PACKAGE_NOT_FOUND';
}

const OLM = 'operators.coreos.com';
export const GVK = {
  pod: { group: '', version: 'v1', kind: 'Pod' },
  deployment: { group: 'apps', version: 'v1', kind: 'Deployment' },
  crd: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
  clusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
  clusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding' },
  catalogSource: { group: OLM, version: 'v1alpha1', kind: 'CatalogSource' },
  subscription: { group: OLM, version: 'v1alpha1', kind: 'Subscription' },
  installPlan: { group: OLM, version: 'v1alpha1', kind: 'InstallPlan' },
  csv: { group: OLM, version: 'v1alpha1', kind: 'ClusterServiceVersion' },
  operatorGroup: { group: OLM, version: 'v1', kind: 'OperatorGroup' },
  packageManifest: { group: 'packages.operators.coreos.com', version: 'v1', kind: 'PackageManifest' },
} as const satisfies Record<string, GroupVersionKind>;
export type Kind = keyof typeof GVK;
export type Kinds = Record<Kind, ApiResource>;

/** Every kind's REST resource; OLM's not being served means OLM is not installed. */
export async function kinds(kube: Pick<KubeClient, 'discover'>, signal: AbortSignal): Promise<Kinds> {
  const out: Partial<Kinds> = {};
  for (const [k, gvk] of Object.entries(GVK) as [Kind, GroupVersionKind][]) {
    out[k] = await kube.discover(gvk, { signal }).catch((err: unknown) => {
      if (err instanceof NotFoundError) {
        throw new RunBundleError(
          `${gvk.kind} (${gvk.group}/${gvk.version}) is not served: is OLM installed? (helm-operator olm install)`,
          { cause: err },
        );
      }
      throw err;
    });
  }
  return out as Kinds;
}

export async function getOrUndefined(
  kube: Pick<KubeClient, 'get'>,
  res: ApiResource,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<KubeObject | undefined> {
  return kube.get(res, namespace, name, { signal }).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
}

/** The opm image of the installed OLM: its catalog operator's --opmImage. */
export async function installedOpmImage(
  kube: Pick<KubeClient, 'list'>,
  k: Pick<Kinds, 'deployment'>,
  signal: AbortSignal,
): Promise<string> {
  const deps = await kube.list(k.deployment, { labelSelector: 'app=catalog-operator', signal });
  for (const dep of deps.items) {
    const containers = ((dep.spec as { template?: { spec?: { containers?: { args?: string[] }[] } } }).template?.spec
      ?.containers ?? []) as { args?: string[] }[];
    for (const args of containers.map((x) => x.args ?? [])) {
      for (let i = 0; i < args.length; i++) {
        const m = /^--?opmImage(?:=(.*))?$/.exec(args[i] ?? '');
        const image = m ? (m[1] ?? args[i + 1]) : undefined;
        if (image) return image;
      }
    }
  }
  throw new RunBundleError(
    "no index image: the installed OLM's catalog-operator has no --opmImage; pass --index-image=IMAGE (an opm image)",
  );
}

export const OPERATOR_GROUP_NAME = 'operator-sdk-og';
export const catalogNameFor = (pkg: string) => `${pkg}-catalog`;
/** operator-sdk's FormatOperatorNameDNS1123 of the CSV's name, then `-sub`. */
export const subscriptionNameFor = (csv: string) =>
  `${csv
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')}-sub`;

const MODES = ['AllNamespaces', 'OwnNamespace', 'SingleNamespace', 'MultiNamespace'] as const;
export type InstallModeType = (typeof MODES)[number];
export interface InstallMode {
  readonly type: InstallModeType;
  readonly targetNamespaces: readonly string[];
}

/** `--install-mode`: AllNamespaces, OwnNamespace, SingleNamespace=NS or MultiNamespace=NS1,NS2 (operator-sdk's). */
export function parseInstallMode(value: string): InstallMode {
  const [type, targets] = value.split('=', 2) as [string, string | undefined];
  if (!(MODES as readonly string[]).includes(type)) {
    throw new ConfigError(`--install-mode: ${JSON.stringify(type)} is not one of ${MODES.join(', ')}`);
  }
  const targetNamespaces = (targets ?? '').split(',').filter((n) => n !== '');
  const needs = type === 'SingleNamespace' || type === 'MultiNamespace';
  if (needs && targetNamespaces.length === 0)
    throw new ConfigError(`--install-mode=${type}=NS: ${type} needs its target namespace(s)`);
  if (!needs && targetNamespaces.length > 0) throw new ConfigError(`--install-mode=${type} takes no target namespaces`);
  if (type === 'SingleNamespace' && targetNamespaces.length > 1)
    throw new ConfigError('--install-mode=SingleNamespace=NS takes one namespace; use MultiNamespace for more');
  return { type: type as InstallModeType, targetNamespaces };
}

/**
 * The OperatorGroup's target namespaces for a CSV supporting `supported` in `namespace` (operator-sdk's order:
 * AllNamespaces, OwnNamespace, SingleNamespace, MultiNamespace), narrowed to `--install-mode` when given. `[]`: all.
 */
export function targetNamespaces(
  supported: readonly string[],
  namespace: string,
  csv: string,
  mode?: InstallMode,
): string[] {
  let modes = supported;
  if (mode !== undefined) {
    if (mode.type === 'SingleNamespace' && mode.targetNamespaces[0] === namespace) {
      throw new RunBundleError(`use install mode OwnNamespace to watch the operator's namespace ${namespace}`);
    }
    modes = supported.filter((m) => m === mode.type);
    if (modes.length === 0) throw new RunBundleError(`operator ${csv} does not support install mode ${mode.type}`);
  }
  if (modes.includes('AllNamespaces')) return [];
  if (modes.includes('OwnNamespace')) return [namespace];
  if (modes.includes('SingleNamespace') || modes.includes('MultiNamespace')) {
    if (mode === undefined) {
      throw new RunBundleError(
        `operator ${csv} supports only SingleNamespace/MultiNamespace: pass --install-mode=SingleNamespace=NS`,
      );
    }
    return [...mode.targetNamespaces];
  }
  throw new RunBundleError(`operator ${csv} supports no install mode`);
}

/** The install modes a PackageManifest's channel head supports. */
export function supportedModes(manifest: KubeObject, channel: string): string[] {
  const channels = (manifest.status as { channels?: ChannelStatus[] } | undefined)?.channels ?? [];
  const modes = channels.find((c) => c.name === channel)?.currentCSVDesc?.installModes ?? [];
  return modes.filter((m) => m.supported === true && typeof m.type === 'string').map((m) => m.type as string);
}
interface ChannelStatus {
  name?: string;
  currentCSV?: string;
  currentCSVDesc?: { installModes?: { type?: string; supported?: boolean }[] };
}

export function catalogSource(
  name: string,
  namespace: string,
  pkg: string,
  address: string,
  annotations: Record<string, string>,
): KubeObject {
  return {
    apiVersion: `${OLM}/v1alpha1`,
    kind: 'CatalogSource',
    metadata: { name, namespace, annotations },
    spec: { sourceType: 'grpc', address, displayName: pkg, publisher: 'operator-sdk' },
  };
}

export function operatorGroup(namespace: string, targets: readonly string[]): KubeObject {
  return {
    apiVersion: `${OLM}/v1`,
    kind: 'OperatorGroup',
    metadata: { name: OPERATOR_GROUP_NAME, namespace },
    spec: targets.length > 0 ? { targetNamespaces: [...targets] } : {},
  };
}

export function subscription(
  namespace: string,
  pkg: string,
  channel: string,
  startingCSV: string,
  catalog: string,
): KubeObject {
  return {
    apiVersion: `${OLM}/v1alpha1`,
    kind: 'Subscription',
    metadata: { name: subscriptionNameFor(startingCSV), namespace },
    spec: {
      name: pkg,
      channel,
      startingCSV,
      source: catalog,
      sourceNamespace: namespace,
      installPlanApproval: 'Manual',
    },
  };
}

/** A CSV's phase, and why it failed (throws on Failed), or undefined once Succeeded. */
export function csvWaiting(csv: KubeObject | undefined): string | undefined {
  if (csv === undefined) return 'not created yet';
  const st = (csv.status ?? {}) as { phase?: string; reason?: string; message?: string };
  if (st.phase === 'Succeeded') return undefined;
  if (st.phase === 'Failed') return `Failed: ${st.reason ?? ''} ${st.message ?? ''}`.trim();
  return `phase ${st.phase || 'none yet'}${st.reason ? ` (${st.reason})` : ''}`;
}

/** The owned CRDs' names of a CSV (what cleanup deletes). */
export function ownedCrds(csv: KubeObject): string[] {
  const owned =
    (csv.spec as { customresourcedefinitions?: { owned?: { name?: string }[] } } | undefined)?.customresourcedefinitions
      ?.owned ?? [];
  return [...new Set(owned.map((c) => c.name).filter((n): n is string => typeof n === 'string' && n !== ''))];
}
