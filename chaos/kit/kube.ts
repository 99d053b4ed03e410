// Kubernetes access for the chaos scenarios (client-node, a dev dependency): the sample CRD, namespaces, CRs of the
// sample kind, and the state checks every scenario ends with (Deployed at the current generation, no pending
// release, nothing left of a deleted CR). Used by the scenarios; holds no state beyond its clients.
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import { run } from '../../test/support/run.ts';

export const KIND = { group: 'demo.example.com', version: 'v1alpha1', kind: 'Nginx', plural: 'nginxes' } as const;

export interface Cr {
  metadata: {
    name: string;
    namespace?: string;
    generation?: number;
    finalizers?: string[];
    deletionTimestamp?: string;
    resourceVersion?: string;
  };
  spec?: Record<string, unknown>;
  status?: {
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    observedGeneration?: number;
    deployedRelease?: { name: string; revision?: number };
  };
}

export interface Kube {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
  kubectl(args: readonly string[], input?: string): Promise<string>;
}

export function kubeFor(kubeconfig: string, kubectlBin: string): Kube {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return {
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    coordination: kc.makeApiClient(CoordinationV1Api),
    kubectl: (args, input) =>
      run(kubectlBin, ['--kubeconfig', kubeconfig, ...args], input === undefined ? {} : { input }),
  };
}

/**
 * Runs a setup step on a plane that has just started, again every 0.5 s for up to 30 s while it fails: the first
 * writes after /readyz can still meet a transient answer (an admission plugin whose informer has not synced). The
 * last error is kept as the cause when the time runs out.
 */
async function setupStep(what: string, step: () => Promise<void>): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (performance.now() > deadline) throw new Error(`chaos setup: ${what} failed for 30 s`, { cause: err });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Applies the repository's sample CRD and waits until it is Established. */
export async function installSampleCrd(k: Kube, root: string): Promise<void> {
  await setupStep('applying the sample CRD', async () => {
    await k.kubectl(['apply', '--server-side', '-f', `${root}/config/crd/bases/demo.example.com_nginxes.yaml`]);
    await k.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/nginxes.demo.example.com']);
  });
}

/** Creates namespace `name` (one that a retried create already made counts as made). */
export async function createNamespace(k: Kube, name: string): Promise<void> {
  await setupStep(`creating namespace ${name}`, async () => {
    await k.core.createNamespace({ body: { metadata: { name } } }).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
  });
}

/** A custom resource kind, addressed through the generic custom-objects API. */
export interface KindRef {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** CRs of kind `ref` (the sample's by default) in `namespace`. */
export function crs(k: Kube, namespace: string, ref: KindRef = KIND) {
  const t = { group: ref.group, version: ref.version, plural: ref.plural, namespace };
  const get = async (name: string): Promise<Cr | undefined> => {
    try {
      return (await k.custom.getNamespacedCustomObject({ ...t, name })) as Cr;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return {
    async list(): Promise<Cr[]> {
      return ((await k.custom.listNamespacedCustomObject(t)) as { items: Cr[] }).items;
    },
    get,
    /** `spec` is anything the API server takes (the bad-input cases send strings and lists). */
    async create(name: string, spec: unknown, metadata: Record<string, unknown> = {}): Promise<Cr> {
      const body = { apiVersion: `${ref.group}/${ref.version}`, kind: ref.kind, metadata: { ...metadata, name }, spec };
      return (await k.custom.createNamespacedCustomObject({ ...t, body })) as Cr;
    },
    /** Merge-patches the spec (no read, no conflict). */
    async patchSpec(name: string, spec: Record<string, unknown>): Promise<void> {
      await k.custom.patchNamespacedCustomObject(
        { ...t, name, body: { spec } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
    async delete(name: string): Promise<void> {
      await k.custom.deleteNamespacedCustomObject({ ...t, name }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
    async condition(name: string, type: string): Promise<Condition | undefined> {
      return (await get(name))?.status?.conditions?.find((c) => c.type === type);
    },
  };
}

export type Condition = NonNullable<NonNullable<Cr['status']>['conditions']>[number];

export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && (err as { code?: number }).code === 404;
}

/** helm's release records (Secrets `owner=helm`) in `namespace`, as `name:revision:status`. */
export async function releaseRecords(k: Kube, namespace: string): Promise<string[]> {
  const list = await k.core.listNamespacedSecret({ namespace, labelSelector: 'owner=helm' });
  return list.items.map((s: V1Secret) => {
    const l = s.metadata?.labels ?? {};
    return `${l.name}:${l.version}:${l.status}`;
  });
}

const isPending = (status: string | undefined) => status?.startsWith('pending-') === true;

/** The latest revision and status of each release, from records `name:revision:status`. */
export function latestReleases(records: readonly string[]): Map<string, { revision: number; status: string }> {
  const out = new Map<string, { revision: number; status: string }>();
  for (const r of records) {
    const [name = '', rev = '', status = ''] = r.split(':');
    const revision = Number(rev);
    if ((out.get(name)?.revision ?? -1) < revision) out.set(name, { revision, status });
  }
  return out;
}

/** Records `name:revision:status` marked pending-*, split into latest revisions (pending) and older ones (stale). */
export function pendingRecords(records: readonly string[]): { pending: string[]; stalePending: string[] } {
  const latest = latestReleases(records);
  const pending: string[] = [];
  const stalePending: string[] = [];
  for (const r of records) {
    const [name = '', rev = '', status = ''] = r.split(':');
    if (!isPending(status)) continue;
    (latest.get(name)?.revision === Number(rev) ? pending : stalePending).push(r);
  }
  return { pending, stalePending };
}

/** Deployed=True for the CR's current generation. */
export function deployedAtGeneration(cr: Cr): boolean {
  const deployed = cr.status?.conditions?.find((c) => c.type === 'Deployed');
  return deployed?.status === 'True' && cr.status?.observedGeneration === cr.metadata.generation;
}
