// What the operator watches: WATCH_NAMESPACE limits it to listed namespaces, the watch's selector limits it to
// matching CRs, and one operator reconciles several kinds. "Ignored" is proven against a CR that the same
// operator did reconcile meanwhile, so no fixed wait is needed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import {
  createTestCrd,
  type OperatorProcess,
  runCleanups,
  startOperator,
  type TestKind,
  watchesYaml,
} from '../../support/operator.js';

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
  const cleanups: (() => Promise<unknown>)[] = [];

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

  beforeAll(async () => {
    kube = testKube();
    const [w, delWeb] = await createTestCrd(kube, 'Web');
    const [c, delCache] = await createTestCrd(kube, 'Cache');
    web = w;
    cache = c;
    const [n1, del1] = await createTestNamespace(kube, 'op-watched');
    const [n2, del2] = await createTestNamespace(kube, 'op-other');
    watched = n1;
    other = n2;
    cleanups.push(delWeb, delCache, del1, del2);
    op = startOperator({
      watches: watchesYaml([{ ...web, extra: '  selector:\n    matchLabels:\n      tier: frontend\n' }, { ...cache }]),
      env: { WATCH_NAMESPACE: ` ${watched} ,` },
    });
    cleanups.push(async () => {
      // Delete the CRs while the operator runs, so that it uninstalls their releases and frees them.
      for (const [k, ns, name] of [
        [web, other, 'elsewhere'],
        [web, watched, 'unlabelled'],
        [web, watched, 'matching'],
        [cache, watched, 'cache'],
      ] as const) {
        await kube.custom.deleteNamespacedCustomObject({ ...k, namespace: ns, name }).catch(() => undefined);
        await vi.waitFor(async () => expect(await isGone(() => get(k, ns, name))).toBe(true), {
          timeout: 60_000,
          interval: 250,
        });
      }
      await op.stop();
    });
  });

  afterAll(async () => {
    await runCleanups(cleanups);
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
