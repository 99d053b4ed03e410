// ValuesFromWatch against a fake API: a CR's annotation starts a metadata-only watch of that kind in its namespace;
// a change of a referenced object (update, creation, deletion) reconciles the CRs that reference it, and nothing
// else does; the cache holds only referenced objects, without data; the watch stops with the last reference.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi, secrets } from '../../test/fakes/kube-api.js';
import { flush } from '../../test/support/flush.js';
import { silentLogger } from '../core/logger.js';
import type { KubeObject, ListOptions } from '../kube/types.js';
import { ValuesFromWatch } from './values-from-watch.js';

const ANNOTATION = 'helm.sdk.operatorframework.io/values-from';
const signal = new AbortController().signal;

const secret = (namespace: string, name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
  data: { 'values.yaml': Buffer.from(value).toString('base64') },
});
const cr = (name: string, refs?: unknown[]): KubeObject => ({
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Nginx',
  metadata: { name, namespace: 'apps', ...(refs ? { annotations: { [ANNOTATION]: JSON.stringify(refs) } } : {}) },
});

let stop: AbortController | undefined;
afterEach(() => stop?.abort());

async function setup() {
  const kube = new FakeKubeApi({
    objects: [secret('apps', 'db', 'a: 1'), secret('apps', 'unrelated', 'b: 2'), secret('other', 'db', 'c: 3')],
  });
  stop = new AbortController();
  const watch = new ValuesFromWatch({ kube, clock: new FakeClock(), logger: silentLogger, signal: stop.signal });
  const triggered: string[] = [];
  const handler = watch.handler('nginx-controller', (key) => triggered.push(key));
  return { kube, watch, handler, triggered };
}

/** Changes the Secret through the API, as a user would. */
async function update(kube: FakeKubeApi, obj: KubeObject): Promise<void> {
  const current = kube.object(secrets, obj.metadata.namespace ?? '', obj.metadata.name ?? '');
  await kube.update(secrets, { ...obj, metadata: { ...obj.metadata, ...current?.metadata } }, { signal });
  await flush();
}

describe('ValuesFromWatch', () => {
  it('watches nothing while no CR references anything (no RBAC needed)', async () => {
    const { kube, watch, handler } = await setup();
    handler.onAdd?.(cr('plain'));
    await flush();
    expect(watch.watched()).toEqual([]);
    expect(kube.calls).toEqual([]);
  });

  it("starts a metadata-only watch of the kind in the CR's namespace, caching only referenced objects", async () => {
    const { kube, watch, handler, triggered } = await setup();
    handler.onAdd?.(cr('web', [{ kind: 'Secret', name: 'db' }]));
    await flush();
    expect(watch.watched()).toEqual(['Secret/apps']);
    const list = kube.calls.find((c) => c.verb === 'list');
    expect(list?.namespace).toBe('apps');
    expect(list?.options as ListOptions | undefined).toMatchObject({ metadataOnly: true });
    expect(kube.calls.find((c) => c.verb === 'watch')?.options).toMatchObject({ metadataOnly: true });
    expect(watch.cachedObjects()).toBe(1);
    expect(triggered).toEqual([]); // the first list only fills the cache
  });

  it('reconciles every CR that references a changed object, and none for other objects', async () => {
    const { kube, handler, triggered } = await setup();
    handler.onAdd?.(cr('web', [{ kind: 'Secret', name: 'db' }]));
    handler.onAdd?.(cr('api', [{ kind: 'Secret', name: 'db', valuesKey: 'other' }]));
    await flush();
    await update(kube, secret('apps', 'unrelated', 'b: 3'));
    await update(kube, secret('other', 'db', 'c: 4'));
    expect(triggered).toEqual([]);
    await update(kube, secret('apps', 'db', 'a: 2'));
    expect(triggered).toEqual(['apps/web', 'apps/api']);
  });

  it('reconciles when a missing referenced object is created, and when it is deleted', async () => {
    const { kube, handler, triggered } = await setup();
    handler.onAdd?.(cr('web', [{ kind: 'Secret', name: 'later' }]));
    await flush();
    await kube.create(secrets, secret('apps', 'later', 'x: 1'), { signal });
    await flush();
    expect(triggered).toEqual(['apps/web']);
    await kube.delete(secrets, 'apps', 'later', { signal });
    await flush();
    expect(triggered).toEqual(['apps/web', 'apps/web']);
  });

  it('starts watching an object a CR references later, in a scope already watched', async () => {
    const { kube, handler, triggered } = await setup();
    handler.onAdd?.(cr('web', [{ kind: 'Secret', name: 'db' }]));
    await flush();
    handler.onUpdate?.(
      cr('web'),
      cr('web', [
        { kind: 'Secret', name: 'db' },
        { kind: 'Secret', name: 'unrelated' },
      ]),
    );
    await update(kube, secret('apps', 'unrelated', 'b: 9'));
    expect(triggered).toEqual(['apps/web']);
  });

  it('stops the watch when the last reference goes (annotation removed, CR deleted), and forgets the CR', async () => {
    const { kube, watch, handler, triggered } = await setup();
    handler.onAdd?.(cr('web', [{ kind: 'Secret', name: 'db' }]));
    handler.onAdd?.(cr('api', [{ kind: 'Secret', name: 'db' }]));
    await flush();
    handler.onUpdate?.(cr('web', [{ kind: 'Secret', name: 'db' }]), cr('web'));
    expect(watch.watched()).toEqual(['Secret/apps']);
    handler.onDelete?.(cr('api', [{ kind: 'Secret', name: 'db' }]));
    expect(watch.watched()).toEqual([]);
    await flush();
    expect(kube.watches.every((w) => w.done)).toBe(true);
    await update(kube, secret('apps', 'db', 'a: 5'));
    expect(triggered).toEqual([]);
  });
});
