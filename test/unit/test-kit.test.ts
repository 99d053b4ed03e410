// The test kit itself: FakeKubeApi behaves like the API server where the unit tests rely on it (resourceVersions,
// 404/409, finalizers, merge and apply patches, dry runs, pages, selectors, watch events, injected errors), and
// FakeHelm answers only what was scripted while helmWithHistory keeps Helm's records as helm does.
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/kube/errors.js';
import type { KubeObject, WatchEvent } from '../../src/kube/types.js';
import { HELM_V3, HelmNotScriptedError, helmWithHistory } from '../fakes/helm.js';
import { configMaps, FakeKubeApi } from '../fakes/kube-api.js';
import { flush } from '../support/flush.js';

const signal = new AbortController().signal;
const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels },
  data: { a: '1', b: '2' },
});

describe('FakeKubeApi', () => {
  it('stamps increasing resourceVersions and rejects a stale update with a ConflictError', async () => {
    const api = new FakeKubeApi();
    const created = await api.create(configMaps, cm('x'), { signal });
    const updated = await api.update(configMaps, { ...created, data: { a: '9' } }, { signal });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    await expect(api.update(configMaps, created, { signal })).rejects.toBeInstanceOf(ConflictError);
    await expect(api.get(configMaps, 'ns', 'nope', { signal })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('merge-patches (null removes), dry-runs an apply without storing it, and honours finalizers on delete', async () => {
    const api = new FakeKubeApi({ objects: [{ ...cm('x'), metadata: { ...cm('x').metadata, finalizers: ['f'] } }] });
    await api.patch(configMaps, 'ns', 'x', { data: { a: null, c: '3' } }, 'merge', { signal });
    expect(api.object(configMaps, 'ns', 'x')?.data).toEqual({ b: '2', c: '3' });
    const dry = await api.patch(configMaps, 'ns', 'x', { data: { d: '4' } }, 'apply', { signal, dryRun: true });
    expect(dry.data).toEqual({ b: '2', c: '3', d: '4' });
    expect(api.object(configMaps, 'ns', 'x')?.data).toEqual({ b: '2', c: '3' });
    await api.delete(configMaps, 'ns', 'x', { signal });
    const deleting = api.object(configMaps, 'ns', 'x');
    expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    await api.update(
      configMaps,
      { ...(deleting as KubeObject), metadata: { ...deleting?.metadata, finalizers: [] } },
      { signal },
    );
    expect(api.object(configMaps, 'ns', 'x')).toBeUndefined();
  });

  it('lists in pages with a label selector, and streams store changes to a watch', async () => {
    const api = new FakeKubeApi({ objects: [cm('a', { app: 'x' }), cm('b', { app: 'x' }), cm('c')] });
    const first = await api.list(configMaps, { signal, labelSelector: 'app=x', limit: 1 });
    const next = first.continue === undefined ? {} : { continue: first.continue };
    const second = await api.list(configMaps, { signal, labelSelector: 'app=x', limit: 1, ...next });
    expect([...first.items, ...second.items].map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(second.continue).toBeUndefined();

    const events: WatchEvent[] = [];
    const stop = new AbortController();
    const watching = api.watch(
      configMaps,
      { namespace: 'ns', resourceVersion: first.resourceVersion, timeoutSeconds: 60, allowWatchBookmarks: false },
      (e) => events.push(e),
      stop.signal,
    );
    await api.create(configMaps, cm('d'), { signal });
    await api.delete(configMaps, 'ns', 'd', { signal });
    expect(events.map((e) => `${e.type} ${(e.object as KubeObject).metadata.name}`)).toEqual(['ADDED d', 'DELETED d']);
    stop.abort(new Error('done'));
    await expect(watching).rejects.toThrow('done');
  });

  it('fails matching calls as often as told, records every call, and holds writes at a gate', async () => {
    const api = new FakeKubeApi({ objects: [cm('x')] });
    const boom = new Error('boom');
    api.failOn({ verb: 'get', name: 'x' }, boom, 1);
    await expect(api.get(configMaps, 'ns', 'x', { signal })).rejects.toBe(boom);
    await expect(api.get(configMaps, 'ns', 'x', { signal })).resolves.toMatchObject({ metadata: { name: 'x' } });
    expect(api.keysOf('get')).toEqual(['configmaps/ns/x', 'configmaps/ns/x']);

    let open: () => void = () => undefined;
    api.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let done = false;
    const writing = api.create(configMaps, cm('y'), { signal }).then(() => {
      done = true;
    });
    await flush();
    expect(done).toBe(false);
    open();
    await writing;
    expect(api.writes).toBe(1);
  });
});

describe('FakeHelm', () => {
  it('throws on anything not scripted and records the call', async () => {
    const { helm } = helmWithHistory();
    await expect(helm.template({ signal, chart: 'c', release: 'r', namespace: 'n' })).rejects.toBeInstanceOf(
      HelmNotScriptedError,
    );
    expect(helm.calls.map((c) => c.command)).toEqual(['template']);
  });

  it('keeps a history: installs and upgrades supersede, a scripted failure records a failed revision, rollback copies', async () => {
    const { helm, history } = helmWithHistory();
    const p = { signal, release: 'web', namespace: 'apps', chart: 'c', values: {}, labels: { l: '1' } };
    expect(await helm.version({ signal })).toEqual(HELM_V3);
    expect((await helm.install(p)).version).toBe(1);
    helm.failNext('upgrade', new Error('bad'), (q: typeof p) => history.recordFailed(q));
    await expect(helm.upgrade(p)).rejects.toThrow('bad');
    await helm.rollback({ signal, release: 'web', namespace: 'apps', revision: 1 });
    expect(history.list().map((h) => `${h.release.version}:${h.release.info.status}`)).toEqual([
      '1:superseded',
      '2:failed',
      '3:deployed',
    ]);
    expect(history.revisions[2]?.labels).toEqual({ l: '1' });
    await helm.uninstall({ signal, release: 'web', namespace: 'apps' });
    expect(history.list()).toEqual([]);
  });
});
