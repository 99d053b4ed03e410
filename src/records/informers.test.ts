import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { releaseJson, releaseSecret } from '../../test/fakes/helm-secret.js';
import { FakeKubeApi, secrets } from '../../test/fakes/kube-api.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import type { KubeObject } from '../kube/types.js';
import { releaseInformers } from './informers.js';

const signal = new AbortController().signal;
const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

async function eventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function started(objects: KubeObject[]) {
  const kube = new FakeKubeApi({ objects });
  const informers = releaseInformers({
    kube,
    namespaces: ['apps'],
    clock: new FakeClock(),
    logger: recordingLogger().logger,
  });
  const stop = new AbortController();
  stops.push(stop);
  void informers.run(stop.signal);
  return { kube, informers };
}

function record(version: number, status: string): KubeObject {
  const secret = releaseSecret(releaseJson({ name: 'web', namespace: 'apps', version, status }));
  return { ...secret, metadata: { ...secret.metadata, uid: `uid-${version}` } };
}

describe('releaseInformers', () => {
  it('drops a decoded record as soon as its Secret is deleted (an uninstall leaves nothing decoded behind)', async () => {
    const { kube, informers } = started([record(1, 'deployed')]);
    await eventually(() => kube.watches.length > 0);
    expect((await informers.reader.history('apps', 'web', { signal })).map((h) => h.release.version)).toEqual([1]);
    expect(informers.cacheStats().records).toBe(1);
    await kube.delete(secrets, 'apps', 'sh.helm.release.v1.web.v1', { signal });
    await eventually(() => informers.cacheStats().records === 0);
    expect(await informers.reader.history('apps', 'web', { signal })).toEqual([]);
  });
});
