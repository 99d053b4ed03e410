// The metrics and probe servers on real sockets (127.0.0.1, port 0): routes, status codes, content type, and
// address parsing ("0" disables, bad addresses and busy ports are ConfigErrors naming the flag), HTTPS with a
// self-signed certificate, and the authorize hook (statuses, the header it sees, abort when the client leaves).
import { request } from 'node:https';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import { type AuthorizeResult, type HttpServers, listenAdvice, parseBindAddress, startHttpServers } from './http.js';
import { selfSignedCertificate } from './selfsigned.js';

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

  it('fails with a ConfigError naming the flag and what to pass instead when the port is taken', async () => {
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
      ).rejects.toThrow(
        `--health-probe-bind-address: cannot listen on 127.0.0.1:${port}: another process already listens there ` +
          '(EADDRINUSE); stop it, or pass --health-probe-bind-address with another port (":0" picks a free one and ' +
          'logs it), or "0" to turn the health probes off',
      );
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});

/** GET over HTTPS, trusting any certificate (the self-signed one in particular). */
function httpsGet(addr: string | undefined, path: string, headers: Record<string, string> = {}) {
  const [host, port] = (addr ?? '').split(/:(?=\d+$)/);
  return new Promise<{ status: number; body: string; authenticate: string | undefined }>((resolve, reject) => {
    const req = request({ host, port: Number(port), path, headers, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        body += d;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, authenticate: res.headers['www-authenticate'] }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startHttpServers with tls and authorize', () => {
  let servers: HttpServers | undefined;
  afterEach(async () => {
    await servers?.close();
    servers = undefined;
  });

  it('serves /metrics over HTTPS only, and the probes stay plain HTTP', async () => {
    servers = await startHttpServers({
      metricsAddress: '127.0.0.1:0',
      probeAddress: '127.0.0.1:0',
      metrics,
      tls: selfSignedCertificate(),
      readyz: () => true,
      logger: silentLogger,
    });
    const { metrics: m, probe } = servers.addresses;
    expect(await httpsGet(m, '/metrics')).toMatchObject({ status: 200, body: 'up 1\n' });
    expect(await httpsGet(m, '/healthz')).toMatchObject({ status: 404 });
    await expect(fetch(`http://${m}/metrics`)).rejects.toThrow();
    expect((await fetch(`http://${probe}/healthz`)).status).toBe(200);
  });

  it('answers with what authorize decides, handing it the Authorization header', async () => {
    const seen: (string | undefined)[] = [];
    let decision: AuthorizeResult = { status: 200 };
    servers = await startHttpServers({
      metricsAddress: '127.0.0.1:0',
      probeAddress: '0',
      metrics,
      tls: selfSignedCertificate(),
      authorize: async (header) => {
        seen.push(header);
        return decision;
      },
      readyz: () => true,
      logger: silentLogger,
    });
    const m = servers.addresses.metrics;
    expect(await httpsGet(m, '/metrics', { Authorization: 'Bearer t1' })).toMatchObject({
      status: 200,
      body: 'up 1\n',
    });
    decision = { status: 401, message: 'Unauthorized' };
    expect(await httpsGet(m, '/metrics')).toEqual({ status: 401, body: 'Unauthorized\n', authenticate: 'Bearer' });
    decision = { status: 403, message: 'Authorization denied for user u' };
    expect(await httpsGet(m, '/metrics', { Authorization: 'Bearer t2' })).toMatchObject({
      status: 403,
      body: 'Authorization denied for user u\n',
      authenticate: undefined,
    });
    decision = { status: 500 };
    expect(await httpsGet(m, '/metrics', { Authorization: 'Bearer t3' })).toMatchObject({
      status: 500,
      body: 'Internal Server Error\n',
    });
    // Unknown paths are 404 without asking.
    expect(await httpsGet(m, '/other', { Authorization: 'Bearer t4' })).toMatchObject({ status: 404 });
    expect(seen).toEqual(['Bearer t1', undefined, 'Bearer t2', 'Bearer t3']);
  });

  it('answers 500 when authorize throws, and aborts its signal when the client goes away', async () => {
    const signals: AbortSignal[] = [];
    let hang = false;
    servers = await startHttpServers({
      metricsAddress: '127.0.0.1:0',
      probeAddress: '0',
      metrics,
      authorize: (_header, signal) => {
        signals.push(signal);
        if (!hang) return Promise.reject(new Error('boom'));
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      readyz: () => true,
      logger: silentLogger,
    });
    const m = servers.addresses.metrics;
    const res = await fetch(`http://${m}/metrics`);
    expect({ status: res.status, body: await res.text() }).toEqual({ status: 500, body: 'Authorization failed\n' });
    hang = true;
    const client = new AbortController();
    const pending = fetch(`http://${m}/metrics`, { signal: client.signal });
    await vi.waitFor(() => expect(signals).toHaveLength(2));
    expect(signals[1]?.aborted).toBe(false);
    client.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(signals[1]?.aborted).toBe(true));
  });

  it('fails with a ConfigError for an unusable certificate', async () => {
    const { cert } = selfSignedCertificate();
    const { key } = selfSignedCertificate();
    await expect(
      startHttpServers({
        metricsAddress: '127.0.0.1:0',
        probeAddress: '0',
        metrics,
        tls: { cert, key },
        readyz: () => true,
        logger: silentLogger,
      }),
    ).rejects.toThrow(ConfigError);
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

describe('listenAdvice', () => {
  const err = (code: string) => Object.assign(new Error(code), { code });

  it('names the metrics flag, a free port and turning the server off for a taken port', () => {
    expect(listenAdvice(err('EADDRINUSE'), 'metrics-bind-address')).toBe(
      'another process already listens there (EADDRINUSE); stop it, or pass --metrics-bind-address with another ' +
        'port (":0" picks a free one and logs it), or "0" to turn the metrics server off',
    );
  });

  it('explains a privileged port and an address the machine does not have, naming the flag', () => {
    expect(listenAdvice(err('EACCES'), 'metrics-bind-address')).toMatch(
      /^not allowed to listen there \(EACCES; ports below 1024 need privileges\); pass --metrics-bind-address /,
    );
    expect(listenAdvice(err('EADDRNOTAVAIL'), 'health-probe-bind-address')).toContain(
      'pass --health-probe-bind-address with one of its addresses',
    );
    expect(listenAdvice(err('EMFILE'), 'health-probe-bind-address')).toMatch(/^EMFILE; pass --health-probe-bind/);
  });
});
