// The steps run bundle and run bundle-upgrade share (run-bundle.ts): their options and result, the registry pod
// started and waited for (registry-pod.ts), the pod owned by its CatalogSource, an InstallPlan approved, a CSV waited
// for. Called only by run-bundle.ts; each step waits under the command's one --timeout deadline.
import type { Clock } from '../core/clock.js';
import type { KubeClient, KubeObject } from '../kube/types.js';
import { OlmFailedError, waiter } from './installer.js';
import {
  csvWaiting,
  getOrUndefined,
  type InstallMode,
  installedOpmImage,
  type Kinds,
  kinds,
  RunBundleError,
} from './objects.js';
import { type RegistryPodSpec, registryPod, registryPodWaiting, renderResult } from './registry-pod.js';

export interface RunBundleDeps {
  readonly kube: Pick<KubeClient, 'get' | 'list' | 'create' | 'patch' | 'delete' | 'discover'>;
  readonly clock: Clock;
  readonly say: (line: string) => void;
}

export interface RunBundleOptions extends Omit<RegistryPodSpec, 'bundles' | 'indexImage'> {
  readonly bundleImage: string;
  /** undefined: the installed OLM's opm image (its catalog operator's --opmImage). */
  readonly indexImage?: string | undefined;
  readonly installMode?: InstallMode | undefined;
  readonly timeoutMs: number;
  /** @default 1_000 */
  readonly pollMs?: number;
}

/** What run bundle made (and bundle-upgrade changed), for the report. */
export interface RunBundleResult {
  readonly package: string;
  readonly csv: string;
  readonly catalogSource: string;
  readonly registryPod: string;
  readonly operatorGroup: string;
  readonly subscription: string;
  readonly installPlan: string;
}

export type Ctx = { d: RunBundleDeps; k: Kinds; ns: string; wait: ReturnType<typeof waiter>; signal: AbortSignal };

/** Creates the registry pod of `bundles` and waits until it serves; returns it with its render result. */
export async function startRegistry(
  c: Ctx,
  o: RunBundleOptions,
  indexImage: string,
  bundles: readonly string[],
  podName?: string,
) {
  const pod = registryPod({ ...o, namespace: c.ns, bundles, indexImage, ...(podName ? { name: podName } : {}) });
  const name = pod.metadata.name ?? '';
  c.d.say(`Creating registry pod ${c.ns}/${name} (${indexImage}) serving ${bundles.join(', ')}`);
  await c.d.kube.create(c.k.pod, pod, { signal: c.signal });
  let live: KubeObject | undefined;
  try {
    await c.wait(`registry pod ${c.ns}/${name}`, async () => {
      live = await getOrUndefined(c.d.kube, c.k.pod, c.ns, name, c.signal);
      return registryPodWaiting(live);
    });
  } catch (err) {
    // A registry that cannot serve is taken away again (its reason is in the error).
    await c.d.kube.delete(c.k.pod, c.ns, name, { signal: c.signal }).catch(() => undefined);
    throw err;
  }
  const served = live === undefined ? undefined : renderResult(live);
  const ip = (live?.status as { podIP?: string } | undefined)?.podIP;
  if (live === undefined || served === undefined || !ip) throw new RunBundleError(`registry pod ${name} vanished`);
  c.d.say(`Registry pod ${name} serves package ${served.package}, channel head ${served.head}, at ${ip}:50051`);
  return { pod: live, name, address: `${ip}:50051`, ...served };
}

/** The registry pod belongs to the CatalogSource, as operator-sdk's: deleting the source collects the pod. */
export async function ownPod(c: Ctx, podName: string, source: KubeObject) {
  const owner = {
    apiVersion: source.apiVersion,
    kind: source.kind,
    name: source.metadata.name ?? '',
    uid: source.metadata.uid ?? '',
  };
  await c.d.kube.patch(c.k.pod, c.ns, podName, { metadata: { ownerReferences: [owner] } }, 'merge', {
    signal: c.signal,
  });
}

/** Waits for a new InstallPlan on the subscription (other than `previous`), approves it; returns its name. */
export async function approveNext(c: Ctx, sub: string, previous: string | undefined): Promise<string> {
  let plan = '';
  await c.wait(`an InstallPlan for subscription ${c.ns}/${sub}`, async () => {
    const live = await getOrUndefined(c.d.kube, c.k.subscription, c.ns, sub, c.signal);
    plan = (live?.status as { installPlanRef?: { name?: string } } | undefined)?.installPlanRef?.name ?? '';
    return plan !== '' && plan !== previous ? undefined : 'none yet';
  });
  await c.d.kube.patch(c.k.installPlan, c.ns, plan, { spec: { approved: true } }, 'merge', { signal: c.signal });
  c.d.say(`Approved InstallPlan ${plan} for Subscription ${sub}`);
  return plan;
}

export async function waitForCsv(c: Ctx, csv: string) {
  c.d.say(`Waiting for ClusterServiceVersion ${c.ns}/${csv} to reach 'Succeeded' phase`);
  await c.wait(`ClusterServiceVersion ${c.ns}/${csv}`, async () => {
    const why = csvWaiting(await getOrUndefined(c.d.kube, c.k.csv, c.ns, csv, c.signal));
    if (why?.startsWith('Failed')) throw new OlmFailedError(`csv ${c.ns}/${csv} ${why}`);
    return why;
  });
}

export async function context(o: RunBundleOptions & { namespace: string }, d: RunBundleDeps, signal: AbortSignal) {
  const k = await kinds(d.kube, signal);
  const c: Ctx = { d, k, ns: o.namespace, wait: waiter(o, d, signal), signal };
  return { c, indexImage: o.indexImage ?? (await installedOpmImage(d.kube, k, signal)) };
}
