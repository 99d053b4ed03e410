// The in-process uninstall against helm's own, with helm 3 and helm 4 on the test plane: two releases of one chart
// (namespaced and cluster-scoped objects, a List, a kept ConfigMap; two revisions each), one uninstalled by `helm
// uninstall`, the other by the Uninstaller. What each leaves behind must be the same, object for object, and
// neither leaves a record. An object re-labelled for another release is left by helm 4 (and its stand-in) only.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../../src/core/logger.js';
import { summarize } from '../../../src/helm/history.js';
import { createKubeClient } from '../../../src/kube/client.js';
import type { KubeClient } from '../../../src/kube/types.js';
import { releaseReader } from '../../../src/records/reader.js';
import { Uninstaller } from '../../../src/uninstall/uninstaller.js';
import { createTestNamespace, type TestKube, testKube } from '../../support/kube.js';
import { ROOT } from '../../support/operator.js';
import { run } from '../../support/run.js';

const CHART = `${ROOT}/test/fixtures/charts/uninstall`;
const signal = new AbortController().signal;
const helms = Object.entries(inject('cluster').helms);

describe.each(helms)('the in-process uninstall against %s uninstall', (_label, helm) => {
  const major = Number(/^v(\d+)\./.exec(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }))?.[1]);
  let kube: TestKube;
  let client: KubeClient;
  let ns: string;
  let deleteNs: () => Promise<void>;
  const helmIn = (...args: string[]) => run(helm, [...args, '--kubeconfig', kube.kubeconfig, '--namespace', ns]);

  beforeAll(async () => {
    kube = testKube();
    client = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig } }).client;
    [ns, deleteNs] = await createTestNamespace(kube, `uninstall-v${major}`);
  });
  afterAll(async () => {
    for (const release of ['by-helm', 'in-process']) {
      await kube.rbac.deleteClusterRole({ name: `${ns}-${release}` }).catch(() => undefined);
    }
    await deleteNs?.();
  });

  /** Every object the chart renders for `release` that exists, as kind/name with the release name taken out. */
  const leftOf = async (release: string): Promise<string[]> => {
    const namespace = ns;
    const listed = [
      ['configmap', (await kube.core.listNamespacedConfigMap({ namespace })).items],
      ['secret', (await kube.core.listNamespacedSecret({ namespace })).items],
      ['service', (await kube.core.listNamespacedService({ namespace })).items],
      ['serviceaccount', (await kube.core.listNamespacedServiceAccount({ namespace })).items],
      ['role', (await kube.rbac.listNamespacedRole({ namespace })).items],
      ['clusterrole', (await kube.rbac.listClusterRole()).items],
    ] as const;
    return listed
      .flatMap(([kind, items]) => items.map((o) => `${kind}/${o.metadata?.name ?? ''}`))
      .filter((n) => n.includes(`/${release}`) || n.includes(`/${ns}-${release}`))
      .map((n) => n.replace(release, 'R'))
      .sort();
  };
  const records = async (release: string) =>
    (await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: `owner=helm,name=${release}` })).items;

  it('leaves what helm leaves: the kept ConfigMap, and no record', async () => {
    for (const release of ['by-helm', 'in-process']) {
      await helmIn('install', release, CHART);
      await helmIn('upgrade', release, CHART, '--set', 'greeting=again');
      expect((await records(release)).length).toBe(2);
    }
    // An object another release claims: helm 4 leaves it (it checks ownership), helm 3 deletes it.
    for (const release of ['by-helm', 'in-process']) {
      await kube.core.patchNamespacedConfigMap({
        name: `${release}-config`,
        namespace: ns,
        body: [{ op: 'replace', path: '/metadata/annotations/meta.helm.sh~1release-name', value: 'someone-else' }],
      });
    }

    await helmIn('uninstall', 'by-helm');
    const history = await releaseReader(client).history(ns, 'in-process', { signal });
    const newest = summarize(history.map((h) => h.release)).latest;
    if (!newest) throw new Error('no record of in-process');
    const observed: string[] = [];
    const uninstaller = new Uninstaller({
      kube: client,
      helmMajor: major,
      observe: (_n, r, o) => observed.push(`${r} ${o}`),
    });
    const outcome = await uninstaller.uninstall({
      newest,
      namespace: ns,
      disableHooks: false,
      signal,
      log: silentLogger,
    });

    expect(outcome).toBe('uninstalled');
    expect(observed).toEqual(['in-process gone']);
    const byHelm = await leftOf('by-helm');
    expect(await leftOf('in-process')).toEqual(byHelm);
    expect(byHelm).toContain('configmap/R-kept');
    expect(byHelm.includes('configmap/R-config')).toBe(major >= 4);
    expect(byHelm.some((n) => n.startsWith('clusterrole/'))).toBe(false);
    expect(await records('in-process')).toEqual([]);
    expect(await records('by-helm')).toEqual([]);
    const left = await kube.core.listNamespacedSecret({ namespace: ns, labelSelector: 'owner=helm' });
    expect(left.items).toEqual([]); // neither helm nor the Uninstaller left any record of any revision
  });

  it('answers not-found once the release has no record, as helm uninstall does', async () => {
    const history = await releaseReader(client).history(ns, 'in-process', { signal });
    expect(history).toEqual([]);
    const gone = {
      name: 'in-process',
      namespace: ns,
      version: 2,
      info: { status: 'deployed' as const },
      chart: { name: 'uninstall', version: '0.1.0' },
      manifest: '',
    };
    const uninstaller = new Uninstaller({ kube: client, helmMajor: major });
    await expect(
      uninstaller.uninstall({ newest: gone, namespace: ns, disableHooks: false, signal, log: silentLogger }),
    ).resolves.toBe('not-found');
    await expect(helmIn('uninstall', 'in-process')).rejects.toThrow(/not found/);
  });
});
