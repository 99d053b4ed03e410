// What the operator watches: WATCH_NAMESPACE limits it to listed namespaces, the watch's selector limits it to
// matching CRs, and one operator reconciles several kinds. "Ignored" is proven against a CR that the same
// operator did reconcile meanwhile, so no fixed wait is needed.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestKube } from '../../support/kube.js';
import type { OperatorProcess, TestKind } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

interface Cr {
  metadata: { finalizers?: string[] };
  status?: { conditions?: { type: string; status: string }[] };
}

describe('what the operator watches', () => {
  let kube: TestKube;
  let web: TestKind;
  let cache: TestKind;
  let watched: string;
  let other: string;
  let op: OperatorProcess;

  const create = (k: TestKind, namespace: string, name: string, labels: Record<string, string> = {}) =>
    kube.custom.createNamespacedCustomObject({
      ...k,
      namespace,
      body: { apiVersion: `${k.group}/${k.version}`, kind: k.kind, metadata: { name, labels }, spec: {} },
    });
  const get = async (k: TestKind, namespace: string, name: string) =>
    (await kube.custom.getNamespacedCustomObject({ ...k, namespace, name })) as Cr;
  const deployedStatus = async (k: TestKind, namespace: string, name: string) =>
    (await get(k, namespace, name)).status?.conditions?.find((c) => c.type === 'Deployed')?.status;

  const f = useOperatorFixture({
    kinds: [{ kind: 'Web', extra: '  selector:\n    matchLabels:\n      tier: frontend\n' }, 'Cache'],
    namespaces: ['op-watched', 'op-other'],
    operator: (f) => ({ env: { WATCH_NAMESPACE: ` ${f.ns} ,` } }),
  });
  beforeAll(() => {
    ({ kube, op } = f);
    [web, cache] = f.kinds as [TestKind, TestKind];
    [watched, other] = f.namespaces as [string, string];
    // Deleted while the operator runs, so that it uninstalls their releases and frees them.
    for (const [k, ns, name] of [
      [web, other, 'elsewhere'],
      [web, watched, 'unlabelled'],
      [web, watched, 'matching'],
      [cache, watched, 'cache'],
    ] as const)
      f.track(k, ns, name);
  });

  it('reconciles two kinds in one operator, and ignores CRs outside WATCH_NAMESPACE or the selector', async () => {
    await create(web, other, 'elsewhere', { tier: 'frontend' });
    await create(web, watched, 'unlabelled', { tier: 'backend' });
    await create(web, watched, 'matching', { tier: 'frontend' });
    await create(cache, watched, 'cache');

    await expect.poll(() => deployedStatus(web, watched, 'matching'), { timeout: 60_000, interval: 250 }).toBe('True');
    await expect.poll(() => deployedStatus(cache, watched, 'cache'), { timeout: 60_000, interval: 250 }).toBe('True');

    for (const [ns, name] of [
      [other, 'elsewhere'],
      [watched, 'unlabelled'],
    ] as const) {
      const cr = await get(web, ns, name);
      expect(cr.metadata.finalizers, `${ns}/${name} finalizers`).toBeUndefined();
      expect(cr.status, `${ns}/${name} status`).toBeUndefined();
    }
    const releases = await kube.core.listNamespacedSecret({ namespace: other, labelSelector: 'owner=helm' });
    expect(releases.items).toEqual([]);
    expect(op.helmCalls().filter((c) => c === 'install')).toHaveLength(2);
  });
});
