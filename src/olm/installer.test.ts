import { describe, expect, it } from 'vitest';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { COMMON_RESOURCES } from '../../test/fakes/kube-resources.js';
import { realClock } from '../core/clock.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { installedVersion, installOlm, olmStatus, rolloutWaiting, uninstallOlm } from './installer.js';
import { formatStatus } from './status.js';

const res = (group: string, version: string, kind: string, plural: string, namespaced = true): ApiResource => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});
const crds = res('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', false);
const csvs = res('operators.coreos.com', 'v1alpha1', 'ClusterServiceVersion', 'clusterserviceversions');
const groups = res('operators.coreos.com', 'v1', 'OperatorGroup', 'operatorgroups');
const SERVED = [...COMMON_RESOURCES, crds, csvs, groups];

const CRDS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: clusterserviceversions.operators.coreos.com}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: operatorgroups.operators.coreos.com}
`;
const OLM = (version: string) => `apiVersion: v1
kind: Namespace
metadata: {name: olm}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: olm-operator, namespace: olm}
spec: {replicas: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: catalog-operator, namespace: olm}
spec: {replicas: 1}
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: global-operators, namespace: operators}
---
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata: {name: packageserver, namespace: olm, labels: {olm.version: ${version}}}
`;

const available = (name: string, replicas = 1): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'olm', generation: 1 },
  spec: { replicas },
  status: { observedGeneration: 1, replicas, updatedReplicas: replicas, availableReplicas: replicas },
});

/** A cluster whose controllers finish at once: CRDs established, Deployments available, the CSV Succeeded. */
function cluster(opts: { csvPhase?: string; deploymentsUp?: boolean } = {}) {
  const kube = new FakeKubeApi({ served: SERVED });
  kube.on('after', { verb: 'create' }, (call) => {
    const obj = call.body as KubeObject;
    if (obj.kind === 'CustomResourceDefinition') {
      kube.put({ ...obj, status: { conditions: [{ type: 'Established', status: 'True' }] } });
    } else if (obj.kind === 'Deployment' && opts.deploymentsUp !== false) {
      kube.put(available(obj.metadata.name ?? ''));
    } else if (obj.kind === 'ClusterServiceVersion') {
      kube.put({ ...obj, status: { phase: opts.csvPhase ?? 'Succeeded', reason: 'InstallSucceeded' } });
      if (opts.deploymentsUp !== false) kube.put(available('packageserver', 2));
    }
  });
  return kube;
}

function deps(kube: FakeKubeApi, version = '0.31.0') {
  const lines: string[] = [];
  const files: Record<string, string> = { '/m/crds.yaml': CRDS, '/m/olm.yaml': OLM(version) };
  return {
    lines,
    d: {
      kube,
      clock: realClock,
      say: (l: string) => lines.push(l),
      readers: {
        fetch: () => Promise.reject(new Error('no network')),
        readFile: async (p: string) => {
          const text = files[p];
          if (text === undefined) throw new Error(`ENOENT: ${p}`);
          return text;
        },
      },
    },
  };
}

const opts = { version: '0.31.0', timeoutMs: 2_000, manifests: '/m', pollMs: 1 };
const signal = new AbortController().signal;

describe('olm install', () => {
  it('creates the CRDs, then the rest, waits for the operators and the CSV, and reports every object healthy', async () => {
    const kube = cluster();
    const { d, lines } = deps(kube);
    const rows = await installOlm(opts, d, signal);
    expect(rows.map((r) => `${r.kind}/${r.name}`)).toEqual([
      'CustomResourceDefinition/clusterserviceversions.operators.coreos.com',
      'CustomResourceDefinition/operatorgroups.operators.coreos.com',
      'Namespace/olm',
      'Deployment/olm-operator',
      'Deployment/catalog-operator',
      'OperatorGroup/global-operators',
      'ClusterServiceVersion/packageserver',
    ]);
    const created = kube.callsOf('create').map((c) => (c.body as KubeObject).kind);
    expect(created.slice(0, 2)).toEqual(['CustomResourceDefinition', 'CustomResourceDefinition']);
    expect(lines).toContain("Waiting for clusterserviceversion/packageserver to reach 'Succeeded' phase");
    expect(lines).toContain('Waiting for deployment/packageserver rollout to complete');
    const table = formatStatus(rows);
    expect(table).toMatch(/^NAME\s+NAMESPACE\s+KIND\s+STATUS\n/);
    expect(table).toMatch(/olm-operator\s+olm\s+Deployment\s+Installed, 1 available/);
    expect(table).toMatch(/packageserver\s+olm\s+ClusterServiceVersion\s+Installed, Succeeded/);
  });

  it('refuses when any object of the manifests exists already', async () => {
    const kube = cluster();
    kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olm' } });
    await expect(installOlm(opts, deps(kube).d, signal)).rejects.toMatchObject({
      code: 'OLM_ALREADY_INSTALLED',
      message: expect.stringContaining('Namespace olm'),
    });
    expect(kube.callsOf('create')).toEqual([]);
  });

  it('fails at the deadline naming what it waited for and how far it got', async () => {
    const kube = cluster({ deploymentsUp: false });
    kube.on('after', { verb: 'create' }, (call) => {
      const obj = call.body as KubeObject;
      if (obj.kind === 'Deployment')
        kube.put({
          ...available(obj.metadata.name ?? ''),
          status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 0 },
        });
    });
    await expect(installOlm({ ...opts, timeoutMs: 30 }, deps(kube).d, signal)).rejects.toMatchObject({
      code: 'OLM_TIMEOUT',
      message: 'timed out after 0 s waiting for deployment/olm-operator: 0 of 1 updated replicas are available',
    });
  });

  it('fails at once when the packageserver CSV fails', async () => {
    await expect(installOlm(opts, deps(cluster({ csvPhase: 'Failed' })).d, signal)).rejects.toMatchObject({
      code: 'OLM_FAILED',
    });
  });
});

describe('olm status and uninstall', () => {
  it('finds the installed version, reports health, and uninstall leaves none of the objects', async () => {
    const kube = cluster();
    const { d } = deps(kube);
    await installOlm(opts, d, signal);
    expect(await installedVersion(d, 'olm', signal)).toBe('0.31.0');
    const status = await olmStatus({ ...opts, version: '' }, d, signal);
    expect(status).toMatchObject({ healthy: true, version: '0.31.0' });

    kube.put({ ...available('catalog-operator'), status: { availableReplicas: 0 } });
    expect((await olmStatus({ ...opts, version: '' }, d, signal)).healthy).toBe(false);

    await expect(olmStatus({ ...opts, version: 'v0.30.0' }, d, signal)).rejects.toMatchObject({
      code: 'OLM_VERSION_MISMATCH',
    });
    expect(await uninstallOlm({ ...opts, version: '' }, d, signal)).toBe('0.31.0');
    const left = [...kube.objects.values()].map((o) => `${o.kind}/${o.metadata.name}`);
    expect(left).toEqual(['Deployment/packageserver']); // the CSV's own: the garbage collector's, on a real cluster
    await expect(olmStatus({ ...opts, version: '' }, d, signal)).rejects.toMatchObject({ code: 'OLM_NOT_INSTALLED' });
    await expect(uninstallOlm({ ...opts, version: '' }, d, signal)).rejects.toMatchObject({
      code: 'OLM_NOT_INSTALLED',
    });
  });

  it('reads the version from the CSV name where the label is missing (OLM before 0.11)', async () => {
    const kube = new FakeKubeApi({ served: SERVED });
    kube.put({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'packageserver.v0.10.1', namespace: 'olm' },
    });
    expect(await installedVersion(deps(kube).d, 'olm', signal)).toBe('0.10.1');
  });

  it('says OLM is not installed when its CRDs are not served', async () => {
    const { d } = deps(new FakeKubeApi());
    expect(await installedVersion(d, 'olm', signal)).toBeUndefined();
    await expect(olmStatus({ ...opts, version: '' }, d, signal)).rejects.toMatchObject({ code: 'OLM_NOT_INSTALLED' });
  });
});

describe('rolloutWaiting (operator-sdk DoRolloutWait)', () => {
  it('names each stage of a rollout', () => {
    expect(rolloutWaiting(undefined)).toBe('not created yet');
    const dep = available('x', 2);
    expect(rolloutWaiting(dep)).toBeUndefined();
    expect(rolloutWaiting({ ...dep, metadata: { ...dep.metadata, generation: 2 } })).toBe(
      'spec update not observed yet',
    );
    expect(rolloutWaiting({ ...dep, status: { observedGeneration: 1, updatedReplicas: 1 } })).toBe(
      '1 out of 2 new replicas have been updated',
    );
    expect(rolloutWaiting({ ...dep, status: { observedGeneration: 1, replicas: 3, updatedReplicas: 2 } })).toBe(
      '1 old replicas are pending termination',
    );
    expect(() =>
      rolloutWaiting({
        ...dep,
        status: { observedGeneration: 1, conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }] },
      }),
    ).toThrow(expect.objectContaining({ code: 'OLM_FAILED' }));
  });
});
