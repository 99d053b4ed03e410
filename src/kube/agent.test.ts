import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../server/selfsigned.js';
import { createAgentCache } from './agent.js';
import type { TlsMaterial } from './kube-auth.js';

const pem = selfSignedCertificate({ dnsNames: ['kube.test'], ipAddresses: ['127.0.0.1'] });
let api: https.Server;
let proxy: http.Server;
let apiUrl: URL;
let proxyUrl: string;
const connects: { target: string; auth: string | undefined; headers: string[] }[] = [];
let refuse = false;

beforeAll(async () => {
  api = https.createServer({ cert: pem.cert, key: pem.key }, (req, res) => {
    res.end(`${(req.socket as TLSSocket).servername}|${req.headers.authorization}`);
  });
  proxy = http.createServer();
  proxy.on('connect', (req, client: net.Socket, head) => {
    connects.push({
      target: req.url ?? '',
      auth: req.headers['proxy-authorization'],
      headers: Object.keys(req.headers),
    });
    if (refuse) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await Promise.all([
    new Promise<void>((r) => api.listen(0, '127.0.0.1', r)),
    new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r)),
  ]);
  apiUrl = new URL(`https://127.0.0.1:${(api.address() as AddressInfo).port}`);
  proxyUrl = `http://user:p%40ss@127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(() => {
  api.closeAllConnections();
  proxy.closeAllConnections();
  api.close();
  proxy.close();
});

function get(agent: http.Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(apiUrl, { agent, headers: { Authorization: 'Bearer api-token' } }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

const material: TlsMaterial = { ca: Buffer.from(pem.cert), servername: 'kube.test', rejectUnauthorized: true };

describe('createAgentCache', () => {
  it('keeps one keep-alive agent while the TLS material is the same, and builds a new one when it changes', () => {
    const agentFor = createAgentCache(apiUrl, undefined);
    const first = agentFor(material);
    expect(agentFor({ ...material, ca: Buffer.from(pem.cert) })).toBe(first);
    expect(agentFor({ ...material, cert: 'other' })).not.toBe(first);
    expect((first as http.Agent & { keepAlive: boolean }).keepAlive).toBe(true);
  });

  it('tunnels through an HTTP CONNECT proxy-url, verifying the API server and reusing the tunnel', async () => {
    connects.length = 0;
    const agent = createAgentCache(apiUrl, proxyUrl)(material);
    expect(await get(agent)).toBe('kube.test|Bearer api-token');
    expect(await get(agent)).toBe('kube.test|Bearer api-token');
    expect(connects).toHaveLength(1);
    expect(connects[0]?.target).toBe(`127.0.0.1:${apiUrl.port}`);
    expect(connects[0]?.auth).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    // The API server's credentials never reach the proxy.
    expect(connects[0]?.headers).not.toContain('authorization');
    agent.destroy();

    const untrusted = createAgentCache(apiUrl, proxyUrl)({ rejectUnauthorized: true });
    await expect(get(untrusted)).rejects.toThrow(/self-signed|certificate/);
    untrusted.destroy();
  });

  it('fails requests the proxy refuses, and refuses proxy URLs it cannot use', async () => {
    refuse = true;
    try {
      const agent = createAgentCache(apiUrl, proxyUrl)(material);
      await expect(get(agent)).rejects.toThrow(/proxy refused CONNECT .*HTTP 403/);
    } finally {
      refuse = false;
    }
    expect(() => createAgentCache(apiUrl, 'socks5://127.0.0.1:1080')).toThrow(/socks5: is not supported/);
    expect(() => createAgentCache(apiUrl, 'not a url')).toThrow(/not a valid URL/);
    expect(() => createAgentCache(new URL('http://127.0.0.1'), proxyUrl)).toThrow(/https servers only/);
  });
});
