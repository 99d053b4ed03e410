// Proves the API server serves CRDs: a CRD is established and a CR of it round-trips through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube, uniqueName } from '../../support/kube.js';

describe('a CustomResourceDefinition on the test cluster', () => {
  let kube: TestKube;
  let ns: string;
  let deleteNs: () => Promise<void>;
  const group = `${uniqueName('smoke')}.example.com`;
  const plural = 'widgets';
  const crdName = `${plural}.${group}`;

  beforeAll(async () => {
    kube = testKube();
    [ns, deleteNs] = await createTestNamespace(kube, 'smoke-crd');
  });

  afterAll(async () => {
    await kube?.apiext.deleteCustomResourceDefinition({ name: crdName }).catch(() => undefined);
    await deleteNs?.();
  });

  it('becomes Established, and a CR of its kind can be created and read back', async () => {
    await kube.apiext.createCustomResourceDefinition({
      body: {
        metadata: { name: crdName },
        spec: {
          group,
          names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1alpha1',
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                    status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                  },
                },
              },
            },
          ],
        },
      },
    });
    await expect
      .poll(
        async () => {
          const crd = await kube.apiext.readCustomResourceDefinition({ name: crdName });
          return crd.status?.conditions?.find((c) => c.type === 'Established')?.status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe('True');

    const body = {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace: ns },
      spec: { replicaCount: 2, nested: { message: 'hello' } },
    };
    // A CRD can be Established a moment before its REST endpoint serves; poll the create.
    await expect
      .poll(
        () =>
          kube.custom
            .createNamespacedCustomObject({ group, version: 'v1alpha1', namespace: ns, plural, body })
            .then(() => 'created')
            .catch((e: unknown) => String(e)),
        { timeout: 30_000, interval: 200 },
      )
      .toBe('created');

    const read = (await kube.custom.getNamespacedCustomObject({
      group,
      version: 'v1alpha1',
      namespace: ns,
      plural,
      name: 'w1',
    })) as { metadata: { uid?: string; generation?: number }; spec: unknown };
    expect(read.spec).toEqual({ replicaCount: 2, nested: { message: 'hello' } });
    expect(read.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(read.metadata.generation).toBe(1);

    await kube.custom.deleteNamespacedCustomObject({ group, version: 'v1alpha1', namespace: ns, plural, name: 'w1' });
    await expect
      .poll(() =>
        isGone(() =>
          kube.custom.getNamespacedCustomObject({ group, version: 'v1alpha1', namespace: ns, plural, name: 'w1' }),
        ),
      )
      .toBe(true);
  });
});
