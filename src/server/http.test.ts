// The metrics and probe servers on real sockets (127.0.0.1, port 0): routes, status codes, content type, and
// address parsing ("0" disables, bad addresses and busy ports are ConfigErrors naming the flag).
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { type HttpServers, parseBindAddress, startHttpServers } from './http.js';

const metrics = {
  render: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'up 1\n' }),
};

describe('startHttpServers', () => {
  let servers: HttpServers | undefined;
  afterEach(async () => {
    await servers?.close();
    servers = undefined;
  });

  it('serves /healthz, /readyz (503 with the reason until ready), /metrics, and 404 elsewhere', async () => {
    let ready: true | string = 'informers not synced';
    servers = await startHttpServers({
      metricsAddress: '127.0.0.1:0',
      probeAddress: '127.0.0.1:0',
      metrics,
      readyz: () => ready,
      logger: silentLogger,
    });
    const { metrics: m, probe } = servers.addresses;
    expect(m).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(probe).toMatch(/^127\.0\.0\.1:\d+$/);
    const get = async (addr: string | undefined, path: string) => {
      const res = await fetch(`http://${addr}${path}`);
      return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
    };
    expect(await get(probe, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(probe, '/readyz')).toMatchObject({ status: 503, body: 'informers not synced\n' });
    ready = true;
    expect(await get(probe, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(probe, '/metrics')).toMatchObject({ status: 404 });
    expect(await get(m, '/metrics')).toEqual({
      status: 200,
      body: 'up 1\n',
      type: 'text/plain; version=0.0.4; charset=utf-8',
    });
    expect(await get(m, '/metrics?x=1')).toMatchObject({ status: 200 });
    expect(await get(m, '/healthz')).toMatchObject({ status: 404 });
    expect((await fetch(`http://${m}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('starts nothing for "0"', async () => {
    servers = await startHttpServers({
      metricsAddress: '0',
      probeAddress: '0',
      metrics,
      readyz: () => true,
      logger: silentLogger,
    });
    expect(servers.addresses).toEqual({});
  });

  it('fails with a ConfigError naming the flag when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(
        startHttpServers({
          metricsAddress: '127.0.0.1:0',
          probeAddress: `127.0.0.1:${port}`,
          metrics,
          readyz: () => true,
          logger: silentLogger,
        }),
      ).rejects.toThrow(`--health-probe-bind-address: cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});

describe('parseBindAddress', () => {
  it.each([
    [':8080', { host: '', port: 8080 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
    ['localhost:1', { host: 'localhost', port: 1 }],
    ['0', undefined],
  ])('%s', (raw, want) => {
    expect(parseBindAddress(raw, 'metrics-bind-address')).toEqual(want);
  });

  it.each(['8080', '', ':', 'host:99999', '::1:80'])('rejects %j', (raw) => {
    expect(() => parseBindAddress(raw, 'metrics-bind-address')).toThrow(/--metrics-bind-address: .* is not an address/);
  });
});
