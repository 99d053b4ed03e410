// Proves the repository's own sample works on the test cluster: the CRD in config/ is accepted, the sample CR
// is stored, and charts/nginx installs with the sample's spec as values (what the operator will do per CR).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { createTestNamespace, isNotFound, type TestKube, testKube } from '../../support/kube.js';
import { run } from '../../support/run.js';

const root = new URL('../../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');

describe('the repository sample (config/ CRD, sample CR, charts/nginx)', () => {
  let kube: TestKube;
  let ns: string;
  let deleteNs: () => Promise<void>;
  let work: string;
  // loadYaml maps wire names (x-kubernetes-preserve-unknown-fields) onto client-node's model names; a plain
  // YAML parse would have the serializer drop them silently, and the API server would prune every spec field.
  const crd = loadYaml<V1CustomResourceDefinition>(read('config/crd/bases/demo.example.com_nginxes.yaml'));
  const sample = parse(read('config/samples/demo_v1alpha1_nginx.yaml')) as {
    metadata: { name: string };
    spec: Record<string, unknown>;
  };
  const [helmLabel, helm] = Object.entries(inject('cluster').helms)[0] ?? [];

  beforeAll(async () => {
    kube = testKube();
    [ns, deleteNs] = await createTestNamespace(kube, 'smoke-sample');
    work = mkdtempSync(join(tmpdir(), 'smoke-sample-'));
  });
  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
    await deleteNs?.();
  });

  it('installs the CRD and stores the sample CR', async () => {
    try {
      await kube.apiext.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      // Another run on an existing cluster may have installed it already; that is fine.
      if (!(err instanceof Error && 'code' in err && err.code === 409)) throw err;
    }
    const target = { group: 'demo.example.com', version: 'v1alpha1', namespace: ns, plural: 'nginxes' };
    await expect
      .poll(
        () =>
          kube.custom
            .createNamespacedCustomObject({
              ...target,
              body: { ...sample, metadata: { ...sample.metadata, namespace: ns } },
            })
            .then(() => 'created')
            .catch((e: unknown) => (isNotFound(e) ? 'not served yet' : String(e))),
        { timeout: 30_000, interval: 200 },
      )
      .toBe('created');
    const got = (await kube.custom.getNamespacedCustomObject({ ...target, name: sample.metadata.name })) as {
      spec: unknown;
    };
    expect(got.spec).toEqual(sample.spec);
  });

  it(`installs charts/nginx with the sample's spec as values (${helmLabel})`, async () => {
    if (!helm) throw new Error('the run provides no helm binary');
    const values = join(work, 'values.yaml');
    writeFileSync(values, JSON.stringify(sample.spec));
    const chart = new URL('charts/nginx', root).pathname;
    await run(helm, [
      'install',
      sample.metadata.name,
      chart,
      '--values',
      values,
      '-n',
      ns,
      '--kubeconfig',
      kube.kubeconfig,
    ]);
    const deploy = await kube.apps.readNamespacedDeployment({ name: `${sample.metadata.name}-nginx`, namespace: ns });
    expect(deploy.spec?.replicas).toBe(2);
    const svc = await kube.core.readNamespacedService({ name: `${sample.metadata.name}-nginx`, namespace: ns });
    expect(svc.spec?.ports?.[0]?.port).toBe(8080);
    const cm = await kube.core.readNamespacedConfigMap({ name: `${sample.metadata.name}-nginx`, namespace: ns });
    expect(cm.data?.['index.html']).toBe('Hello from the helm-operator demo');
  });
});
