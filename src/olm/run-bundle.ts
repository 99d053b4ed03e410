import { NotFoundError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import {
  approveNext,
  type Ctx,
  context,
  ownPod,
  type RunBundleDeps,
  type RunBundleOptions,
  type RunBundleResult,
  startRegistry,
  waitForCsv,
} from './bundle-steps.js';
import { waiter } from './installer.js';
import {
  catalogNameFor,
  catalogSource,
  getOrUndefined,
  kinds,
  operatorGroup,
  PackageNotFoundError,
  RunBundleError,
  subscription,
  supportedModes,
  targetNamespaces,
} from './objects.js';
import { ANNOTATIONS, podNameFor, RUN_BUNDLE_CHANNEL } from './registry-pod.js';

/** `run bundle IMG`. */
export async function runBundle(o: RunBundleOptions, d: RunBundleDeps, signal: AbortSignal): Promise<RunBundleResult> {
  const { c, indexImage } = await context(o, d, signal);
  const reg = await startRegistry(c, o, indexImage, [o.bundleImage]);
  const csName = catalogNameFor(reg.package);
  const annotations = {
    [ANNOTATIONS.indexImage]: indexImage,
    [ANNOTATIONS.injectedBundles]: JSON.stringify([{ imageTag: o.bundleImage, mode: 'fbc' }]),
    [ANNOTATIONS.registryPod]: reg.name,
  };
  const source = await d.kube
    .create(c.k.catalogSource, catalogSource(csName, c.ns, reg.package, reg.address, annotations), { signal })
    .catch(async (err: unknown) => {
      await d.kube.delete(c.k.pod, c.ns, reg.name, { signal }).catch(() => undefined);
      if ((err as { code?: string }).code === 'KUBE_ALREADY_EXISTS') {
        throw new RunBundleError(
          `CatalogSource ${c.ns}/${csName} exists already: run helm-operator cleanup ${reg.package} -n ${c.ns} first, or run bundle-upgrade`,
          { cause: err },
        );
      }
      throw err;
    });
  await ownPod(c, reg.name, source);
  d.say(`Created CatalogSource ${c.ns}/${csName}`);

  // The install modes of the CSV, from the package as OLM's package server lists it.
  let modes: string[] = [];
  await c.wait(`package ${reg.package} listed by OLM's package server`, async () => {
    // Listed by catalog: a package of the same name from another catalog (a global one) is another manifest.
    const listed = await d.kube.list(c.k.packageManifest, {
      namespace: c.ns,
      labelSelector: `catalog=${csName}`,
      signal,
    });
    const manifest = listed.items.find((m) => m.metadata.name === reg.package);
    modes = manifest === undefined ? [] : supportedModes(manifest, RUN_BUNDLE_CHANNEL);
    return modes.length > 0 ? undefined : manifest === undefined ? 'not listed yet' : 'no install modes yet';
  });
  const targets = targetNamespaces(modes, c.ns, reg.head, o.installMode);
  const groups = (await d.kube.list(c.k.operatorGroup, { namespace: c.ns, signal })).items;
  if (groups.length > 1) {
    throw new RunBundleError(
      `more than one OperatorGroup in namespace ${c.ns}: ${groups.map((g) => g.metadata.name).join(', ')}`,
    );
  }
  let group = groups[0];
  if (group === undefined) {
    group = await d.kube.create(c.k.operatorGroup, operatorGroup(c.ns, targets), { signal });
    d.say(`Created OperatorGroup ${c.ns}/${group.metadata.name}`);
  } else if (o.installMode !== undefined) {
    const have = [...((group.spec as { targetNamespaces?: string[] } | undefined)?.targetNamespaces ?? [])].sort();
    if (JSON.stringify(have) !== JSON.stringify([...targets].sort())) {
      throw new RunBundleError(
        `existing OperatorGroup ${c.ns}/${group.metadata.name} is not compatible with install mode ${o.installMode.type}`,
      );
    }
  }
  const sub = await d.kube.create(
    c.k.subscription,
    subscription(c.ns, reg.package, RUN_BUNDLE_CHANNEL, reg.head, csName),
    { signal },
  );
  const subName = sub.metadata.name ?? '';
  d.say(`Created Subscription ${c.ns}/${subName}`);
  const plan = await approveNext(c, subName, undefined);
  await waitForCsv(c, reg.head);
  d.say(`OLM has successfully installed ${JSON.stringify(reg.head)}`);
  return {
    package: reg.package,
    csv: reg.head,
    catalogSource: csName,
    registryPod: reg.name,
    operatorGroup: group.metadata.name ?? '',
    subscription: subName,
    installPlan: plan,
  };
}

/** The subscription of the package that `bundleImage`'s registry pod serves, found from the installed ones. */
async function findSubscription(c: Ctx, pkg: string): Promise<KubeObject> {
  const subs = (await c.d.kube.list(c.k.subscription, { namespace: c.ns, signal: c.signal })).items;
  const sub = subs.find((s) => (s.spec as { name?: string } | undefined)?.name === pkg);
  if (sub === undefined) {
    throw new PackageNotFoundError(
      `no Subscription of package ${pkg} in namespace ${c.ns}: run bundle installs it first`,
    );
  }
  return sub;
}

/** `run bundle-upgrade IMG`. */
export async function upgradeBundle(
  o: RunBundleOptions,
  d: RunBundleDeps,
  signal: AbortSignal,
): Promise<RunBundleResult> {
  const k0 = await kinds(d.kube, signal);
  const c: Ctx = { d, k: k0, ns: o.namespace, wait: waiter(o, d, signal), signal };
  // The package is the one the new bundle's registry pod reports; the CatalogSource is the subscription's.
  const sources = (await d.kube.list(c.k.catalogSource, { namespace: c.ns, signal })).items.filter(
    (s) => s.metadata.annotations?.[ANNOTATIONS.injectedBundles] !== undefined,
  );
  if (sources.length === 0) {
    throw new PackageNotFoundError(`no CatalogSource made by run bundle in namespace ${c.ns}: run bundle first`);
  }
  const injected = (s: KubeObject): string[] =>
    (JSON.parse(s.metadata.annotations?.[ANNOTATIONS.injectedBundles] ?? '[]') as { imageTag?: string }[])
      .map((b) => b.imageTag)
      .filter((t): t is string => typeof t === 'string');
  for (const source of sources) {
    if (injected(source).includes(o.bundleImage)) {
      throw new RunBundleError(`bundle ${o.bundleImage} is in CatalogSource ${c.ns}/${source.metadata.name} already`);
    }
  }
  // More than one run bundle catalog: the new bundle's package (from a registry pod of it alone) picks the one.
  let source = sources[0];
  if (sources.length > 1) {
    const probe = `${podNameFor(o.bundleImage).slice(0, 57)}-probe`;
    const image = o.indexImage ?? source?.metadata.annotations?.[ANNOTATIONS.indexImage] ?? '';
    const alone = await startRegistry(c, o, image, [o.bundleImage], probe);
    await d.kube.delete(c.k.pod, c.ns, probe, { signal }).catch(() => undefined);
    source = sources.find((s) => s.metadata.name === catalogNameFor(alone.package));
  }
  if (source === undefined) {
    throw new PackageNotFoundError(`no CatalogSource made by run bundle for ${o.bundleImage}'s package in ${c.ns}`);
  }
  const podName = podNameFor(o.bundleImage);
  const indexImage = o.indexImage ?? source.metadata.annotations?.[ANNOTATIONS.indexImage] ?? '';
  const previousPod = source.metadata.annotations?.[ANNOTATIONS.registryPod];
  const bundles = [...injected(source), o.bundleImage];
  if (previousPod === podName) throw new RunBundleError(`registry pod ${podName} exists already`);
  const reg = await startRegistry(c, o, indexImage, bundles);
  const sub = await findSubscription(c, reg.package).catch(async (err: unknown) => {
    await d.kube.delete(c.k.pod, c.ns, reg.name, { signal }).catch(() => undefined);
    throw err;
  });
  const subName = sub.metadata.name ?? '';
  const prevPlan = (sub.status as { installPlanRef?: { name?: string } } | undefined)?.installPlanRef?.name;
  const annotations = {
    [ANNOTATIONS.indexImage]: indexImage,
    [ANNOTATIONS.injectedBundles]: JSON.stringify(bundles.map((imageTag) => ({ imageTag, mode: 'fbc' }))),
    [ANNOTATIONS.registryPod]: reg.name,
  };
  const updated = await d.kube.patch(
    c.k.catalogSource,
    c.ns,
    source.metadata.name ?? '',
    { metadata: { annotations }, spec: { address: reg.address, sourceType: 'grpc', image: null } },
    'merge',
    { signal },
  );
  await ownPod(c, reg.name, updated);
  d.say(`Updated CatalogSource ${c.ns}/${source.metadata.name} with address ${reg.address}`);
  if (previousPod) {
    await d.kube.delete(c.k.pod, c.ns, previousPod, { signal }).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
    await c.wait(`previous registry pod ${c.ns}/${previousPod} to be deleted`, async () =>
      (await getOrUndefined(d.kube, c.k.pod, c.ns, previousPod, signal)) === undefined ? undefined : 'still there',
    );
    d.say(`Deleted previous registry pod ${previousPod}`);
  }
  const plan = await approveNext(c, subName, prevPlan);
  await waitForCsv(c, reg.head);
  d.say(`Successfully upgraded to ${JSON.stringify(reg.head)}`);
  const groups = (await d.kube.list(c.k.operatorGroup, { namespace: c.ns, signal })).items;
  return {
    package: reg.package,
    csv: reg.head,
    catalogSource: source.metadata.name ?? '',
    registryPod: reg.name,
    operatorGroup: groups.map((g) => g.metadata.name).join(', '),
    subscription: subName,
    installPlan: plan,
  };
}
