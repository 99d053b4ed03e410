// Proves the raw-JSON KubeClient against a real API server: CRUD and error mapping, pagination, watch, discovery,
// and that a CRD with x-kubernetes-preserve-unknown-fields (and its CRs) round-trip without losing any field.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKubeClient, type KubeClientHandle } from '../../../src/kube/client.js';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../../src/kube/errors.js';
import type { ApiResource, KubeClient, KubeObject, WatchEvent } from '../../../src/kube/types.js';
import { createTestNamespace, type TestKube, testKube, uniqueName } from '../../support/kube.js';

const signal = new AbortController().signal;
const poll = { timeout: 30_000, interval: 200 };

describe('KubeClient against the test cluster', () => {
  let kube: TestKube;
  let handle: KubeClientHandle;
  let client: KubeClient;
  let configMaps: ApiResource;

  beforeAll(async () => {
    kube = testKube();
    handle = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig } });
    client = handle.client;
    configMaps = await client.discover({ group: '', version: 'v1', kind: 'ConfigMap' }, { signal });
  });

  /** Runs `fn` with a fresh namespace that is deleted afterwards. */
  async function inNamespace(prefix: string, fn: (ns: string) => Promise<void>): Promise<void> {
    const [ns, deleteNs] = await createTestNamespace(kube, prefix);
    try {
      await fn(ns);
    } finally {
      await deleteNs();
    }
  }

  const cm = (ns: string, name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    ...extra,
    metadata: { name, namespace: ns, ...extra.metadata },
  });

  it('reports where it connects and reads the server version', async () => {
    expect(handle.describe()).toMatchObject({ source: 'KUBECONFIG', server: expect.stringMatching(/^https:\/\//) });
    expect((await client.serverVersion({ signal })).gitVersion).toMatch(/^v1\.\d+/);
  });

  it('discovers the plural and scope of core kinds', async () => {
    expect(configMaps).toEqual({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
    const ns = await client.discover({ group: '', version: 'v1', kind: 'Namespace' }, { signal });
    expect(ns).toMatchObject({ plural: 'namespaces', namespaced: false });
    await expect(client.discover({ group: '', version: 'v1', kind: 'NoSuchKind' }, { signal })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('creates, reads, updates and deletes a ConfigMap and maps NotFound, Conflict and AlreadyExists', () =>
    inNamespace('kube-crud', async (ns) => {
      const created = await client.create(configMaps, cm(ns, 'a', { data: { k: '1' } }), { signal });
      expect(created.metadata.uid).toBeTruthy();
      const read = await client.get(configMaps, ns, 'a', { signal });
      expect(read).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: '1' } });

      const updated = await client.update(configMaps, { ...read, data: { k: '2' } }, { signal });
      expect(updated.data).toEqual({ k: '2' });
      expect(updated.metadata.resourceVersion).not.toBe(read.metadata.resourceVersion);

      const stale = await client.update(configMaps, { ...read, data: { k: '3' } }, { signal }).catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(ConflictError);
      expect(stale).toMatchObject({ code: 'KUBE_CONFLICT', status: 409, reason: 'Conflict' });
      await expect(client.create(configMaps, cm(ns, 'a'), { signal })).rejects.toBeInstanceOf(AlreadyExistsError);

      await client.delete(configMaps, ns, 'a', { signal });
      const missing = await client.get(configMaps, ns, 'a', { signal }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing).toMatchObject({ code: 'KUBE_NOT_FOUND', status: 404 });
    }));

  it('adds and removes finalizers with merge patches, and deletion waits for them', () =>
    inNamespace('kube-finalizer', async (ns) => {
      await client.create(configMaps, cm(ns, 'held'), { signal });
      const patched = await client.patch(
        configMaps,
        ns,
        'held',
        { metadata: { finalizers: ['example.com/hold'] } },
        'merge',
        {
          signal,
        },
      );
      expect(patched.metadata.finalizers).toEqual(['example.com/hold']);

      await client.delete(configMaps, ns, 'held', { signal, propagationPolicy: 'Background' });
      const terminating = await client.get(configMaps, ns, 'held', { signal });
      expect(terminating.metadata.deletionTimestamp).toBeTruthy();

      await client.patch(configMaps, ns, 'held', { metadata: { finalizers: null } }, 'merge', { signal });
      await expect
        .poll(() => client.get(configMaps, ns, 'held', { signal }).catch((e: unknown) => e), poll)
        .toBeInstanceOf(NotFoundError);
    }));

  it('lists in pages of `limit` objects, following `continue`', () =>
    inNamespace('kube-pages', async (ns) => {
      const names = Array.from({ length: 7 }, (_, i) => `item-${i}`);
      for (const name of names) {
        await client.create(configMaps, cm(ns, name, { metadata: { labels: { batch: 'paged' } } }), { signal });
      }
      const pages: KubeObject[][] = [];
      let next: string | undefined;
      do {
        const page = await client.list(configMaps, {
          signal,
          namespace: ns,
          labelSelector: 'batch=paged',
          limit: 3,
          ...(next === undefined ? {} : { continue: next }),
        });
        expect(page.resourceVersion).not.toBe('');
        pages.push(page.items);
        next = page.continue;
      } while (next !== undefined);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      const items = pages.flat();
      expect(items.map((o) => o.metadata.name).sort()).toEqual(names);
      expect(items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1')).toBe(true);
    }));

  it('watches ADDED, MODIFIED and DELETED events from a list resourceVersion', () =>
    inNamespace('kube-watch', async (ns) => {
      const { resourceVersion } = await client.list(configMaps, { signal, namespace: ns });
      const events: WatchEvent[] = [];
      const stop = new AbortController();
      const watching = client
        .watch(
          configMaps,
          { namespace: ns, resourceVersion, timeoutSeconds: 60, allowWatchBookmarks: true },
          (e) => events.push(e),
          stop.signal,
        )
        .catch((e: unknown) => e);
      const created = await client.create(configMaps, cm(ns, 'w', { data: { v: '1' } }), { signal });
      await client.update(configMaps, { ...created, data: { v: '2' } }, { signal });
      await client.delete(configMaps, ns, 'w', { signal });
      const seen = () =>
        events
          .filter((e) => e.type !== 'BOOKMARK' && e.type !== 'ERROR' && e.object.metadata.name === 'w')
          .map((e) => e.type);
      await expect.poll(seen, poll).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      stop.abort(new Error('test done'));
      expect(await watching).toMatchObject({ message: 'test done' });
    }));

  it('lists and watches metadata only: labels and resourceVersions arrive, data never does', () =>
    inNamespace('kube-meta', async (ns) => {
      await client.create(configMaps, cm(ns, 'm1', { data: { secretish: 'x'.repeat(1000) } }), { signal });
      const listed = await client.list(configMaps, { signal, namespace: ns, metadataOnly: true });
      const m1 = listed.items.find((i) => i.metadata.name === 'm1');
      expect(m1).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { namespace: ns } });
      expect(m1?.metadata.resourceVersion).toBeTruthy();
      expect(m1).not.toHaveProperty('data');
      const events: WatchEvent[] = [];
      const stop = new AbortController();
      const options = {
        namespace: ns,
        resourceVersion: listed.resourceVersion,
        timeoutSeconds: 60,
        metadataOnly: true,
      };
      const watching = client
        .watch(configMaps, { ...options, allowWatchBookmarks: true }, (e) => events.push(e), stop.signal)
        .catch((e: unknown) => e);
      await client.create(
        configMaps,
        cm(ns, 'm2', { metadata: { name: 'm2', labels: { a: 'b' } }, data: { k: 'v' } }),
        {
          signal,
        },
      );
      const added = () => events.find((e) => e.type === 'ADDED' && e.object.metadata.name === 'm2');
      await expect.poll(added, poll).toBeDefined();
      expect(added()?.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { labels: { a: 'b' } } });
      expect(added()?.object).not.toHaveProperty('data');
      stop.abort(new Error('test done'));
      expect(await watching).toMatchObject({ message: 'test done' });
    }));

  it('resolves a watch when the server ends it after timeoutSeconds', () =>
    inNamespace('kube-watch-end', async (ns) => {
      const { resourceVersion } = await client.list(configMaps, { signal, namespace: ns });
      const started = Date.now();
      await client.watch(
        configMaps,
        { namespace: ns, resourceVersion, timeoutSeconds: 1, allowWatchBookmarks: true },
        () => {},
        signal,
      );
      expect(Date.now() - started).toBeLessThan(15_000);
    }));

  describe('a CRD with x-kubernetes-preserve-unknown-fields and a status subresource', () => {
    const group = `${uniqueName('kube')}.example.com`;
    const crdName = `gadgets.${group}`;
    let crds: ApiResource;
    let gadgets: ApiResource;
    let ns: string;
    let deleteNs: () => Promise<void>;

    beforeAll(async () => {
      [ns, deleteNs] = await createTestNamespace(kube, 'kube-crd');
      crds = await client.discover(
        { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
        { signal },
      );
      const openAPIV3Schema = {
        type: 'object',
        properties: {
          spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      };
      await client.create(
        crds,
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: crdName },
          spec: {
            group,
            names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
            scope: 'Namespaced',
            versions: [
              { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema } },
            ],
          },
        },
        { signal },
      );
      // expect.poll only works inside tests; vi.waitFor retries until the callback stops throwing.
      await vi.waitFor(async () => {
        const crd = await client.get(crds, '', crdName, { signal });
        const conditions = (crd.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? [];
        expect(conditions.find((c) => c.type === 'Established')?.status).toBe('True');
      }, poll);
      gadgets = await vi.waitFor(() => client.discover({ group, version: 'v1', kind: 'Gadget' }, { signal }), poll);
    });

    afterAll(async () => {
      await client?.delete(crds, '', crdName, { signal }).catch(() => undefined);
      await deleteNs?.();
    });

    it('keeps the x-kubernetes-preserve-unknown-fields markers it was created with', async () => {
      const crd = await client.get(crds, '', crdName, { signal });
      const spec = crd.spec as {
        versions: Array<{ schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }>;
      };
      expect(spec.versions[0]?.schema.openAPIV3Schema.properties).toEqual({
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      });
      expect(gadgets).toEqual({ group, version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true });
    });

    it('round-trips arbitrary spec fields and writes status only through the status subresource', async () => {
      const spec = { replicaCount: 2, nested: { list: [1, { deep: 'x' }], 'x-odd-key': true }, empty: {} };
      const body: KubeObject = {
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        metadata: { name: 'g1', namespace: ns },
        spec,
      };
      // A CRD can be Established a moment before its REST endpoint serves; poll the create.
      await expect
        .poll(
          () =>
            client
              .create(gadgets, body, { signal })
              .then(() => 'created')
              .catch((e: unknown) => (e instanceof AlreadyExistsError ? 'created' : String(e))),
          poll,
        )
        .toBe('created');
      const read = await client.get(gadgets, ns, 'g1', { signal });
      expect(read.spec).toEqual(spec);

      const withStatus = await client.updateStatus(
        gadgets,
        { ...read, status: { phase: 'Ready', detail: { n: 1 } } },
        { signal },
      );
      expect(withStatus.status).toEqual({ phase: 'Ready', detail: { n: 1 } });

      const mainUpdate = await client.update(
        gadgets,
        { ...withStatus, spec: { ...spec, replicaCount: 3 }, status: { phase: 'Ignored' } },
        { signal },
      );
      expect(mainUpdate.spec).toMatchObject({ replicaCount: 3 });
      expect(mainUpdate.status).toEqual({ phase: 'Ready', detail: { n: 1 } });

      const held = await client.patch(gadgets, ns, 'g1', { metadata: { finalizers: ['example.com/hold'] } }, 'merge', {
        signal,
      });
      expect(held.metadata.finalizers).toEqual(['example.com/hold']);
      await client.delete(gadgets, ns, 'g1', { signal });
      expect((await client.get(gadgets, ns, 'g1', { signal })).metadata.deletionTimestamp).toBeTruthy();
      await client.patch(gadgets, ns, 'g1', { metadata: { finalizers: null } }, 'merge', { signal });
      await expect
        .poll(() => client.get(gadgets, ns, 'g1', { signal }).catch((e: unknown) => e), poll)
        .toBeInstanceOf(NotFoundError);
    });
  });
});
