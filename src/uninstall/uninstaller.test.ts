import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import { configMaps, deployments, FakeKubeApi, secrets } from '../../test/fakes/kube-api.js';
import { silentLogger } from '../core/logger.js';
import type { Release } from '../helm/types.js';
import { ForbiddenError, KubeApiError } from '../kube/errors.js';
import type { DeleteOptions, KubeObject } from '../kube/types.js';
import { UninstallFailedError } from './errors.js';
import { Uninstaller } from './uninstaller.js';

const MANIFEST = [
  '---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n',
  '---\n# Source: demo/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
  '---\n# Source: demo/templates/kept.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-kept\n' +
    '  annotations:\n    helm.sh/resource-policy: keep\n',
].join('');

const OWNED = {
  labels: { 'app.kubernetes.io/managed-by': 'Helm' },
  annotations: { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': 'ns' },
};

function newest(more: Partial<Release> = {}): Release {
  return releaseRecord({ namespace: 'ns', version: 2, manifest: MANIFEST, ...more });
}

/** The release's objects and its two records, as helm leaves them after an upgrade. */
function cluster(): FakeKubeApi {
  const kube = new FakeKubeApi();
  for (const [res, name] of [
    [configMaps, 'web-config'],
    [deployments, 'web'],
    [configMaps, 'web-kept'],
  ] as const)
    kube.add(res, 'ns', name, OWNED);
  for (const v of [1, 2])
    kube.add(secrets, 'ns', `sh.helm.release.v1.web.v${v}`, {
      labels: { owner: 'helm', name: 'web', version: `${v}` },
    });
  kube.add(secrets, 'ns', 'sh.helm.release.v1.other.v1', { labels: { owner: 'helm', name: 'other', version: '1' } });
  return kube;
}

function uninstall(
  kube: FakeKubeApi,
  helmMajor = 3,
  release = newest(),
  observed: string[] = [],
  cachedRecords?: () => readonly KubeObject[] | undefined,
) {
  const observe = (ns: string, r: string, o: string) => observed.push(`${ns}/${r} ${o}`);
  const uninstaller = new Uninstaller({ kube, helmMajor, observe, ...(cachedRecords ? { cachedRecords } : {}) });
  const signal = new AbortController().signal;
  return uninstaller.uninstall({ newest: release, namespace: 'ns', disableHooks: false, signal, log: silentLogger });
}

const left = (kube: FakeKubeApi) => [...kube.objects.keys()].sort();

describe('Uninstaller', () => {
  it('deletes the objects in helm order, Background, then every record of the release, and keeps keep-policy ones', async () => {
    const kube = cluster();
    const observed: string[] = [];
    await expect(uninstall(kube, 3, newest(), observed)).resolves.toBe('uninstalled');
    expect(left(kube)).toEqual(['configmaps/ns/web-kept', 'secrets/ns/sh.helm.release.v1.other.v1']);
    const deletes = kube.callsOf('delete').map((c) => [c.key, (c.options as DeleteOptions).propagationPolicy]);
    expect(deletes.slice(0, 2)).toEqual([
      ['deployments/ns/web', 'Background'],
      ['configmaps/ns/web-config', 'Background'],
    ]);
    expect(
      deletes
        .slice(2)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['secrets/ns/sh.helm.release.v1.web.v1', 'secrets/ns/sh.helm.release.v1.web.v2']);
    expect(kube.listCalls.map((l) => l.labelSelector)).toEqual(['owner=helm,name=web']);
    expect(kube.callsOf('get')).toEqual([]); // helm 3 deletes without reading first
    expect(observed).toEqual(['ns/web gone']);
  });

  it('with helm 4, reads each object first and leaves alone one that is not the release’s', async () => {
    const kube = cluster();
    kube.add(deployments, 'ns', 'web', { labels: { 'app.kubernetes.io/managed-by': 'Helm' } }); // no release annotations
    await expect(uninstall(kube, 4)).resolves.toBe('uninstalled');
    expect(left(kube)).toEqual([
      'configmaps/ns/web-kept',
      'deployments/ns/web',
      'secrets/ns/sh.helm.release.v1.other.v1',
    ]);
    expect(kube.keysOf('get').sort()).toEqual(['configmaps/ns/web-config', 'deployments/ns/web']);
  });

  it('counts an object already gone as deleted', async () => {
    const kube = cluster();
    kube.objects.delete('deployments/ns/web');
    await expect(uninstall(kube)).resolves.toBe('uninstalled');
    expect(left(kube)).toEqual(['configmaps/ns/web-kept', 'secrets/ns/sh.helm.release.v1.other.v1']);
  });

  it('takes the records from the cache when it shows the newest, without a LIST, and LISTs when it is behind', async () => {
    const kube = cluster();
    const record = (v: number) => kube.object(secrets, 'ns', `sh.helm.release.v1.web.v${v}`) as KubeObject;
    const cached = [record(1), record(2)];
    await expect(uninstall(kube, 3, newest(), [], () => cached)).resolves.toBe('uninstalled');
    expect(kube.listCalls).toEqual([]);
    expect(left(kube)).toEqual(['configmaps/ns/web-kept', 'secrets/ns/sh.helm.release.v1.other.v1']);

    const again = cluster();
    const behind = [again.object(secrets, 'ns', 'sh.helm.release.v1.web.v1') as KubeObject]; // v2 not seen yet
    await expect(uninstall(again, 3, newest(), [], () => behind)).resolves.toBe('uninstalled');
    expect(again.listCalls.length).toBe(1);
    expect(left(again)).toEqual(['configmaps/ns/web-kept', 'secrets/ns/sh.helm.release.v1.other.v1']);
  });

  it('answers not-found when no record is left, and deletes nothing', async () => {
    const kube = cluster();
    for (const v of [1, 2]) kube.objects.delete(`secrets/ns/sh.helm.release.v1.web.v${v}`);
    await expect(uninstall(kube)).resolves.toBe('not-found');
    expect(kube.callsOf('delete')).toEqual([]);
  });

  it('leaves the release to helm when a newer record appeared since it was read', async () => {
    const kube = cluster();
    kube.add(secrets, 'ns', 'sh.helm.release.v1.web.v3', { labels: { owner: 'helm', name: 'web', version: '3' } });
    await expect(uninstall(kube)).resolves.toEqual({ declined: 'its records changed since read (revision 3)' });
    expect(kube.callsOf('delete')).toEqual([]);
  });

  it('leaves the release to helm when the server does not serve one of its kinds, before deleting anything', async () => {
    const kube = cluster();
    const odd = `${MANIFEST}---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n`;
    await expect(uninstall(kube, 3, newest({ manifest: odd }))).resolves.toEqual({
      declined: 'the server does not serve example.com/v1 Widget',
    });
    expect(kube.callsOf('delete')).toEqual([]);
  });

  it('tries every object, then fails naming each refused one, and keeps the records for the retry', async () => {
    const kube = cluster();
    const refused = new ForbiddenError({
      status: 403,
      reason: 'Forbidden',
      serverMessage: 'deployments.apps "web" is forbidden: User "op" cannot delete resource "deployments"',
      operation: 'DELETE',
    });
    kube.failOn({ verb: 'delete', key: 'deployments/ns/web' }, refused);
    const observed: string[] = [];
    const err = await uninstall(kube, 3, newest(), observed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UninstallFailedError);
    expect((err as UninstallFailedError).code).toBe('UNINSTALL_FAILED');
    expect((err as Error).message).toMatch(/^failed to delete release web: Deployment ns\/web: .*cannot delete/);
    expect((err as Error).cause).toBe(refused);
    expect(left(kube)).toEqual([
      'configmaps/ns/web-kept',
      'deployments/ns/web',
      'secrets/ns/sh.helm.release.v1.other.v1',
      'secrets/ns/sh.helm.release.v1.web.v1',
      'secrets/ns/sh.helm.release.v1.web.v2',
    ]);
    expect(observed).toEqual(['ns/web unknown']);
  });

  it('fails naming a record it could not delete', async () => {
    const kube = cluster();
    const broken = new KubeApiError({
      status: 500,
      reason: 'InternalError',
      serverMessage: 'etcd',
      operation: 'DELETE',
    });
    kube.failOn({ verb: 'delete', key: 'secrets/ns/sh.helm.release.v1.web.v1' }, broken);
    await expect(uninstall(kube)).rejects.toThrow(/could not purge its records: Secret sh\.helm\.release\.v1\.web\.v1/);
  });

  it('purges only the records of a release uninstalled with its history kept', async () => {
    const kube = cluster();
    await expect(uninstall(kube, 3, newest({ info: { status: 'uninstalled' } }))).resolves.toBe('uninstalled');
    expect(left(kube)).toEqual([
      'configmaps/ns/web-config',
      'configmaps/ns/web-kept',
      'deployments/ns/web',
      'secrets/ns/sh.helm.release.v1.other.v1',
    ]);
  });
});
