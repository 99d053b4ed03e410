// The keep-alive HTTP(S) agent for the API server, rebuilt only when the TLS material changes (e.g. a rotated
// exec-plugin certificate), and, for a kubeconfig proxy-url, the same agent tunnelled through an HTTP CONNECT proxy.
// Called by kube/client.ts. Never logs, and never sends the API server's credentials to the proxy.

import type http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ConfigError } from '../core/errors.js';
import { nodeHttp } from '../core/node-http.js';
import type { TlsMaterial } from './kube-auth.js';

const KEEP_ALIVE = { keepAlive: true, keepAliveMsecs: 30_000 };

/** Checks the proxy URL (throws a ConfigError) and returns: TLS material → the agent to use for it. */
export function createAgentCache(server: URL, proxyUrl: string | undefined): (material: TlsMaterial) => http.Agent {
  const proxy = proxyUrl === undefined ? undefined : checkProxy(proxyUrl, server);
  let agent: http.Agent | undefined;
  let current: TlsMaterial | undefined;
  return (material) => {
    if (agent === undefined || current === undefined || !sameMaterial(material, current)) {
      // The old agent is not destroyed: requests in flight finish on it, and its idle sockets are closed by the
      // server. Rotation is rare.
      current = material;
      agent = makeAgent(server, proxy, material);
    }
    return agent;
  };
}

function makeAgent(server: URL, proxy: URL | undefined, m: TlsMaterial): http.Agent {
  if (server.protocol === 'http:') return new nodeHttp.Agent(KEEP_ALIVE);
  const options: https.AgentOptions = { ...KEEP_ALIVE, rejectUnauthorized: m.rejectUnauthorized };
  if (m.ca !== undefined) options.ca = m.ca;
  if (m.cert !== undefined) options.cert = m.cert;
  if (m.key !== undefined) options.key = m.key;
  if (m.servername !== undefined) options.servername = m.servername;
  return proxy === undefined ? new https.Agent(options) : new ConnectProxyAgent(proxy, options);
}

function checkProxy(proxyUrl: string, server: URL): URL {
  let proxy: URL;
  try {
    proxy = new URL(proxyUrl);
  } catch {
    throw new ConfigError('kubeconfig proxy-url is not a valid URL');
  }
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
    throw new ConfigError(`kubeconfig proxy-url scheme ${proxy.protocol} is not supported (only http and https)`);
  }
  if (server.protocol !== 'https:') throw new ConfigError('kubeconfig proxy-url is supported for https servers only');
  return proxy;
}

type Callback = (err: Error | null, socket?: Duplex) => void;

/** An https.Agent whose sockets are TLS over a CONNECT tunnel: keep-alive and TLS options work as without a proxy. */
class ConnectProxyAgent extends https.Agent {
  readonly #proxy: URL;
  constructor(proxy: URL, options: https.AgentOptions) {
    super(options);
    this.#proxy = proxy;
  }

  // Node's Agent takes the socket from the callback (documented for agent.createConnection).
  override createConnection(options: tls.ConnectionOptions, callback: Callback): undefined {
    const p = this.#proxy;
    const target = `${options.host?.includes(':') ? `[${options.host}]` : options.host}:${options.port ?? 443}`;
    const auth = p.username === '' ? undefined : `${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`;
    const connect = (p.protocol === 'https:' ? https.request : nodeHttp.request)({
      host: p.hostname.replace(/^\[|\]$/g, ''),
      port: p.port === '' ? (p.protocol === 'https:' ? 443 : 80) : Number(p.port),
      method: 'CONNECT',
      path: target,
      agent: false,
      headers: {
        Host: target,
        ...(auth === undefined ? {} : { 'Proxy-Authorization': `Basic ${Buffer.from(auth).toString('base64')}` }),
      },
    });
    connect.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        callback(new Error(`the proxy refused CONNECT to ${target}: HTTP ${res.statusCode}`));
        return;
      }
      callback(null, tls.connect({ ...options, socket }));
    });
    connect.once('error', (err) => callback(err));
    connect.end();
    return undefined;
  }
}

function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  return (
    a.rejectUnauthorized === b.rejectUnauthorized &&
    a.servername === b.servername &&
    same(a.ca, b.ca) &&
    same(a.cert, b.cert) &&
    same(a.key, b.key)
  );
}

function same(a: Buffer | string | undefined, b: Buffer | string | undefined): boolean {
  if (a === b) return true;
  return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
}
