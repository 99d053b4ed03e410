// The kube client's request limit, as controller-runtime v0.21 sets it: none by default (the API server's Priority
// and Fairness protects it), client-go's token bucket once a rate limit is given. Against a local HTTP server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { type CreateKubeClientOptions, createKubeClient } from './client.js';

const CONFIGMAPS = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;

let dir: string;
let server: Server;
let served = 0;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-rate-'));
  served = 0;
  server = createServer((_req, res) => {
    served++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function client(clock: FakeClock, extra: Partial<CreateKubeClientOptions> = {}) {
  const { port } = server.address() as AddressInfo;
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: local\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
      'users:',
      '- name: local\n  user:\n    token: t',
      'contexts:',
      '- name: local\n  context:\n    cluster: local\n    user: local',
      'current-context: local',
      '',
    ].join('\n'),
  );
  return createKubeClient({ env: {}, kubeconfigPath: file, clock, ...extra }).client;
}

describe('the kube client rate limit', () => {
  it('is off by default: 40 requests at once all go out without waiting on the clock', async () => {
    const clock = new FakeClock();
    const kube = client(clock);
    const signal = new AbortController().signal;
    const all = Array.from({ length: 40 }, () => kube.get(CONFIGMAPS, 'ns', 'c', { signal }));
    expect(clock.pendingTimers()).toBe(0);
    await Promise.all(all);
    expect(served).toBe(40);
    expect(clock.now()).toBe(0);
  });

  it('applies when set: a burst goes out at once, then one request per 1/qps', async () => {
    const clock = new FakeClock();
    const kube = client(clock, { rateLimit: { qps: 2, burst: 3 } });
    const signal = new AbortController().signal;
    let done = 0;
    const all = Array.from({ length: 5 }, () => kube.get(CONFIGMAPS, 'ns', 'c', { signal }).then(() => done++));
    await vi.waitFor(() => expect(done).toBe(3));
    expect(clock.pendingTimers()).toBe(2);
    expect(served).toBe(3);
    clock.advance(500);
    await vi.waitFor(() => expect(done).toBe(4));
    expect(served).toBe(4);
    clock.advance(500);
    await Promise.all(all);
    expect(served).toBe(5);
  });
});
