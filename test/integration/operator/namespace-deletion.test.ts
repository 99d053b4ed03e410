// A namespace deleted under live releases leaves nothing behind: the finalizer uninstalls each release, and when
// the namespace's deletion has already taken the release records, the operator deletes what the release put outside
// the namespace (cluster-scoped RBAC, an IngressClass, a webhook configuration, a Role in another namespace) from
// the CR's status manifest. Real control plane, real helm, the real operator process.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { isGone, type TestKube } from '../../support/kube.js';
import { crClient, ROOT, type TestKind } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = `${ROOT}/test/fixtures/charts/outside`;
const POLL = { timeout: 90_000, interval: 250 } as const;

describe('a namespace deleted with two live CRs of a chart that puts objects outside it', () => {
  let kube: TestKube;
  let kind: TestKind;
  let other: string;

  /** What one release puts outside its namespace, as [group, version, plural, namespace, name]. */
  const outside = (ns: string, release: string) => {
    const name = `${ns}-${release}`;
    return [
      ['rbac.authorization.k8s.io', 'v1', 'clusterroles', '', name],
      ['rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', '', name],
      ['networking.k8s.io', 'v1', 'ingressclasses', '', name],
      ['admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', '', name],
      ['rbac.authorization.k8s.io', 'v1', 'roles', other, name],
    ] as const;
  };
  const read = (group: string, version: string, plural: string, namespace: string, name: string) =>
    namespace === ''
      ? kube.custom.getClusterCustomObject({ group, version, plural, name })
      : kube.custom.getNamespacedCustomObject({ group, version, plural, namespace, name });
  /** The outside objects of these releases that still exist, as "plural/namespace/name". */
  const left = async (ns: string, releases: readonly string[]) => {
    const found: string[] = [];
    for (const [group, version, plural, namespace, name] of releases.flatMap((r) => outside(ns, r))) {
      if (!(await isGone(() => read(group, version, plural, namespace, name))))
        found.push(`${plural}/${namespace}/${name}`);
    }
    return found;
  };
  const deleteLeftovers = (ns: string) => async () => {
    for (const [group, version, plural, namespace, name] of ['one', 'two'].flatMap((r) => outside(ns, r))) {
      const target = { group, version, plural, name };
      await (namespace === ''
        ? kube.custom.deleteClusterCustomObject(target)
        : kube.custom.deleteNamespacedCustomObject({ ...target, namespace })
      ).catch(() => undefined);
    }
  };
  const start = (ns: string) => f.start({ env: { WATCH_NAMESPACE: ns } });
  /** A namespace with two Deployed CRs whose releases put all their outside objects in place. */
  const deployTwo = async (prefix: string) => {
    const ns = await f.addNamespace(prefix);
    f.onCleanup(deleteLeftovers(ns));
    const crs = crClient(kube, kind, ns);
    const op = start(ns);
    for (const name of ['one', 'two']) await crs.create(name, { otherNamespace: other });
    for (const name of ['one', 'two']) {
      await vi.waitFor(async () => expect((await crs.condition(name, 'Deployed'))?.status).toBe('True'), POLL);
    }
    const present = await left(ns, ['one', 'two']);
    expect(present, present.join(' ')).toHaveLength(10);
    return { ns, crs, op };
  };
  const namespaceGone = (ns: string) =>
    vi.waitFor(async () => expect(await isGone(() => kube.core.readNamespace({ name: ns }))).toBe(true), POLL);

  const f = useOperatorFixture({
    kinds: [{ kind: 'Edge', chart: CHART }],
    namespaces: ['op-nsdel-other'],
    start: false,
  });
  beforeAll(() => {
    ({ kube, kind, ns: other } = f);
  });

  it('with the operator running, leaves 0 objects of either release', async () => {
    const { ns } = await deployTwo('op-nsdel');
    await kube.core.deleteNamespace({ name: ns });
    await namespaceGone(ns);
    expect(await left(ns, ['one', 'two'])).toEqual([]);
  });

  it('when the release records went first (operator down meanwhile), deletes the outside objects from the status manifest', async () => {
    const { ns, crs, op } = await deployTwo('op-nsdel-late');
    await op.stop();
    await kube.core.deleteNamespace({ name: ns });
    // The namespace's deletion takes the release records; the CRs stay, held by the finalizer.
    await vi.waitFor(async () => {
      const records = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' });
      expect(records.items).toEqual([]);
    }, POLL);
    for (const name of ['one', 'two']) {
      expect((await crs.get(name)).metadata.finalizers).toContain('helm.sdk.operatorframework.io/uninstall-release');
    }
    expect(await left(ns, ['one', 'two'])).toHaveLength(10);

    const restarted = start(ns);
    await namespaceGone(ns);
    expect(await left(ns, ['one', 'two'])).toEqual([]);
    expect(restarted.output()).toContain('"msg":"Release not found"');
    expect(restarted.output().match(/"msg":"Deleted release objects outside its namespace"/g)).toHaveLength(2);
    expect(restarted.helmCalls()).toEqual(['version']);
  });
});
