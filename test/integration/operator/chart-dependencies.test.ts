// Charts loaded as helm's library loads them, against the real control plane and helm 3 and 4, with charts written
// for these tests. A declared dependency whose archive .helmignore leaves out (a published project's pattern): helm's
// CLI refuses the chart, operator-sdk's in-process helm installs it without the dependency; so does the operator,
// with one DependencyDropped warning per install or upgrade. A dependency present in another version than declared:
// helm renders that subchart, CLI and library alike, and so does the operator, without a warning.
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { isGone, type TestKube } from '../../support/kube.js';
import { crClient, ROOT, type TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const IGNORED_CHART = join(ROOT, 'test/fixtures/charts/ignored-dependency');
const MISMATCH_CHART = join(ROOT, 'test/fixtures/charts/dependency-version-mismatch');

const helms = Object.entries(inject('cluster').helms);

describe.each(helms)('the operator with %s, for dependencies helm does not load as declared', (_, helm) => {
  let kube: TestKube;
  let ns: string;
  let ignored: ReturnType<typeof crClient>;
  let mismatched: ReturnType<typeof crClient>;

  const f = useOperatorFixture({
    kinds: [
      { kind: 'Ignored', chart: IGNORED_CHART },
      { kind: 'Mismatched', chart: MISMATCH_CHART },
    ],
    namespaces: ['op-deps'],
    helm,
    operator: () => ({ args: ['--reconcile-period=0'] }),
  });

  /** The messages of the CR's events of `reason`, once per occurrence (the recorder aggregates repeats). */
  const events = async (name: string, reason: string) => {
    const list = await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` });
    return list.items
      .filter((e) => e.reason === reason)
      .flatMap((e) => Array.from({ length: e.count ?? 1 }, () => e.message ?? ''));
  };
  const configMap = (name: string) => kube.core.readNamespacedConfigMap({ name, namespace: ns });
  const deployed = async (crs: ReturnType<typeof crClient>, name: string, reason: string) => {
    await vi.waitFor(async () => expect((await crs.condition(name, 'Deployed'))?.reason).toBe(reason), POLL);
    return crs.condition(name, 'Deployed');
  };

  beforeAll(() => {
    ({ kube, ns } = f);
    const [ignoredKind, mismatchedKind] = f.kinds as [TestKind, TestKind];
    ignored = crClient(kube, ignoredKind, ns);
    mismatched = crClient(kube, mismatchedKind, ns);
  });

  it('installs the chart whose dependency .helmignore leaves out: Deployed with its NOTES, and a warning', async () => {
    f.track(f.kinds[0] as TestKind, ns, 'shop');
    await ignored.create('shop', { message: 'first' });
    const condition = await deployed(ignored, 'shop', 'InstallSuccessful');
    expect(condition).toMatchObject({ status: 'True', message: 'shop is installed from ignored-dependency 0.1.0.' });
    expect((await ignored.condition('shop', 'ReleaseFailed'))?.status).toBeUndefined();
    // Chart.yaml's other lines reach helm as written: `appVersion: 1.10` reads as "1.1", as operator-sdk renders it.
    expect((await configMap('shop-app')).data).toEqual({ message: 'first', appVersion: '1.1' });
    expect(await isGone(() => configMap('shop-keystore'))).toBe(true);
    await vi.waitFor(async () => expect(await events('shop', 'DependencyDropped')).toHaveLength(1), POLL);
    expect((await events('shop', 'DependencyDropped'))[0]).toBe(
      'Chart dependency "keystore" 7.2.0 (declared in Chart.yaml) is not part of the chart as helm\'s library ' +
        "loads it (.helmignore leaves out charts/): the release is rendered without it, as operator-sdk's " +
        'helm-operator does',
    );
  });

  it('upgrades it the same way, with one more warning', async () => {
    await ignored.setSpec('shop', { message: 'second' });
    await deployed(ignored, 'shop', 'UpgradeSuccessful');
    expect((await configMap('shop-app')).data).toMatchObject({ message: 'second' });
    expect(await isGone(() => configMap('shop-keystore'))).toBe(true);
    await vi.waitFor(async () => expect(await events('shop', 'DependencyDropped')).toHaveLength(2), POLL);
  });

  it('installs a subchart of another version than declared, as helm renders it, without a warning', async () => {
    f.track(f.kinds[1] as TestKind, ns, 'cache');
    await mismatched.create('cache', {});
    const condition = await deployed(mismatched, 'cache', 'InstallSuccessful');
    expect(condition?.message).toBe('cache is installed from dependency-version-mismatch 0.1.0.');
    expect((await configMap('cache-keystore')).data).toEqual({ version: '2.0.0' });
    expect((await configMap('cache-app')).data).toEqual({ dependencies: 'keystore' });
    expect(await events('cache', 'DependencyDropped')).toEqual([]);
  });

  it('leaves that subchart out when its condition turns it off, as helm does', async () => {
    await mismatched.setSpec('cache', { keystore: { enabled: false } });
    await deployed(mismatched, 'cache', 'UpgradeSuccessful');
    await vi.waitFor(async () => expect(await isGone(() => configMap('cache-keystore'))).toBe(true), POLL);
    expect(await events('cache', 'DependencyDropped')).toEqual([]);
  });
});
