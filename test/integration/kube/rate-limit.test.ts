// The kube client's request limit against the real API server: none by default (as controller-runtime v0.21, the
// API server's Priority and Fairness protects it), client-go's token bucket when a rate limit is set. The bucket
// waits on an injected fake clock, so what is held back is counted, never timed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKubeClient } from '../../../src/kube/client.js';
import type { ApiResource } from '../../../src/kube/types.js';
import { FakeClock } from '../../fakes/clock.js';
import { createTestNamespace, type TestKube, testKube } from '../../support/kube.js';

const signal = new AbortController().signal;

describe('the kube client rate limit against the test cluster', () => {
  let kube: TestKube;
  let ns: string;
  let deleteNs: () => Promise<void>;
  let configMaps: ApiResource;

  beforeAll(async () => {
    kube = testKube();
    [ns, deleteNs] = await createTestNamespace(kube, 'kube-rate');
    const client = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig } }).client;
    configMaps = await client.discover({ group: '', version: 'v1', kind: 'ConfigMap' }, { signal });
  });
  afterAll(async () => {
    await deleteNs?.();
  });

  it('is off by default: 60 requests at once all reach the API server without waiting', async () => {
    const clock = new FakeClock();
    const client = createKubeClient({ env: { KUBECONFIG: kube.kubeconfig }, clock }).client;
    const lists = Array.from({ length: 60 }, () => client.list(configMaps, { namespace: ns, signal }));
    expect(clock.pendingTimers()).toBe(0);
    await Promise.all(lists);
    expect(clock.now()).toBe(0);
  });

  it('holds requests beyond the burst back until the bucket refills at qps when a limit is set', async () => {
    const clock = new FakeClock();
    const client = createKubeClient({
      env: { KUBECONFIG: kube.kubeconfig },
      clock,
      rateLimit: { qps: 10, burst: 4 },
    }).client;
    let done = 0;
    const lists = Array.from({ length: 6 }, () =>
      client.list(configMaps, { namespace: ns, signal }).then(() => done++),
    );
    await vi.waitFor(() => expect(done).toBe(4), { timeout: 10_000 });
    expect(clock.pendingTimers()).toBe(2);
    clock.advance(100);
    await vi.waitFor(() => expect(done).toBe(5), { timeout: 10_000 });
    clock.advance(100);
    await Promise.all(lists);
    expect(done).toBe(6);
  });
});
