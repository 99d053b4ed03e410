// The metrics (`GET /metrics`) and health-probe (`GET /healthz`, `GET /readyz`) HTTP servers, on Go-style addresses
// (":8080", "[::1]:8080"; port 0 picks a free port; "0" disables it). Started by Manager.start before discovery;
// the operator runs no other HTTP server (its post-renderer talks through FIFOs, ownership/fifo-server.ts). Never exits:
// an unbindable port is a ConfigError naming the flag. `tls` makes /metrics HTTPS; `authorize` (metrics-auth.ts) checks
// every /metrics request first (the Authorization header is handed over, never logged).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { errFields } from '../core/error-fields.js';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { nodeHttp } from '../core/node-http.js';

export interface MetricsSource {
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/** The outcome of checking one /metrics request; `message` is the response body for a refusal. */
export interface AuthorizeResult {
  readonly status: 200 | 401 | 403 | 500;
  readonly message?: string;
}

/** Decides a /metrics request from its Authorization header; aborted when the client goes away. */
export type MetricsAuthorizer = (authorization: string | undefined, signal: AbortSignal) => Promise<AuthorizeResult>;

export interface HttpServersOptions {
  /** --metrics-bind-address; "0" disables. */
  readonly metricsAddress: string;
  /** --health-probe-bind-address; "0" disables. */
  readonly probeAddress: string;
  readonly metrics: MetricsSource;
  /** Serve /metrics over HTTPS with this PEM certificate and key (--metrics-secure). @default plain HTTP */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Check every /metrics request first (--metrics-require-rbac). @default every request is allowed */
  readonly authorize?: MetricsAuthorizer;
  /** true when ready, else the reason (served with 503). */
  readonly readyz: () => true | string;
  readonly logger: Logger;
}

export interface HttpServers {
  /** The bound addresses ("host:port"); absent when that server is disabled. */
  readonly addresses: { readonly metrics?: string; readonly probe?: string };
  close(): Promise<void>;
}

/** Parses a Go listen address; undefined for "0" (disabled). Throws a ConfigError naming `flag`. */
export function parseBindAddress(raw: string, flag: string): { host: string; port: number } | undefined {
  if (raw === '0') return undefined;
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d{1,5})$/.exec(raw);
  const port = Number(m?.[3]);
  if (!m || port > 65535) {
    throw new ConfigError(
      `--${flag}: ${JSON.stringify(raw)} is not an address like ":8080" or "127.0.0.1:8080" (or "0")`,
    );
  }
  return { host: m[1] ?? m[2] ?? '', port };
}

/** Starts the enabled servers; rejects (closing any already started) when one cannot bind. */
export async function startHttpServers(o: HttpServersOptions): Promise<HttpServers> {
  const metricsAt = parseBindAddress(o.metricsAddress, 'metrics-bind-address');
  const probeAt = parseBindAddress(o.probeAddress, 'health-probe-bind-address');
  const servers: Server[] = [];
  const addresses: { metrics?: string; probe?: string } = {};
  const close = async () => {
    await Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
  };
  try {
    if (metricsAt) {
      const handler = (req: IncomingMessage, res: ServerResponse) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return void send(res, 405, 'method not allowed\n');
        if (path(req.url) !== '/metrics') return void send(res, 404, '404 page not found\n');
        const render = () =>
          o.metrics.render().then(
            ({ contentType, body }) => send(res, 200, body, contentType),
            (err: unknown) => {
              o.logger.error({ err: errFields(err) }, 'Cannot render metrics');
              send(res, 500, 'cannot render metrics\n');
            },
          );
        const authorize = o.authorize;
        if (authorize === undefined) return void render();
        const gone = new AbortController();
        res.once('close', () => gone.abort(new Error('the metrics client went away')));
        authorize(req.headers.authorization, gone.signal)
          .catch((err: unknown): AuthorizeResult => {
            o.logger.error({ err: errFields(err) }, 'Cannot authorize a metrics request');
            return { status: 500, message: 'Authorization failed' };
          })
          .then((r) => {
            if (res.destroyed) return;
            if (r.status === 200) return render();
            const extra = r.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
            send(res, r.status, `${r.message ?? nodeHttp.STATUS_CODES[r.status] ?? 'error'}\n`, undefined, extra);
          });
      };
      let server: Server;
      try {
        server = o.tls
          ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, handler)
          : nodeHttp.createServer(handler);
      } catch (err) {
        throw new ConfigError(`--metrics-secure: unusable certificate or key: ${(err as Error).message}`, {
          cause: err,
        });
      }
      addresses.metrics = await listen(server, metricsAt, 'metrics-bind-address');
      servers.push(server);
      o.logger.info(
        { address: addresses.metrics, secure: o.tls !== undefined, requireRbac: o.authorize !== undefined },
        'Serving metrics',
      );
    }
    if (probeAt) {
      const server = nodeHttp.createServer((req, res) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return void send(res, 405, 'method not allowed\n');
        const p = path(req.url);
        if (p === '/healthz') return void send(res, 200, 'ok');
        if (p !== '/readyz') return void send(res, 404, '404 page not found\n');
        let ready: true | string;
        try {
          ready = o.readyz();
        } catch (err) {
          ready = `readiness check failed: ${String(err)}`;
        }
        if (ready === true) send(res, 200, 'ok');
        else send(res, 503, `${ready}\n`);
      });
      addresses.probe = await listen(server, probeAt, 'health-probe-bind-address');
      servers.push(server);
      o.logger.info({ address: addresses.probe }, 'Serving health probes');
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { addresses, close };
}

function path(url: string | undefined): string {
  const q = (url ?? '/').indexOf('?');
  return q < 0 ? (url ?? '/') : (url ?? '/').slice(0, q);
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function listen(server: Server, at: { host: string; port: number }, flag: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const where = `${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
      reject(new ConfigError(`--${flag}: cannot listen on ${where}: ${listenAdvice(err, flag)}`, { cause: err }));
    };
    server.once('error', onError);
    const ready = () => {
      server.off('error', onError);
      const a = server.address() as AddressInfo;
      resolve(`${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
    };
    if (at.host === '') server.listen(at.port, ready);
    else server.listen(at.port, at.host, ready);
  });
}

/** Why a server cannot listen, in words, and what to pass instead: the flag's name and its two ways out. */
export function listenAdvice(err: NodeJS.ErrnoException, flag: string): string {
  const server = flag === 'metrics-bind-address' ? 'the metrics server' : 'the health probes';
  const instead = `pass --${flag} with another port (":0" picks a free one and logs it), or "0" to turn ${server} off`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `another process already listens there (EADDRINUSE); stop it, or ${instead}`;
    case 'EACCES':
      return `not allowed to listen there (EACCES; ports below 1024 need privileges); ${instead}`;
    case 'EADDRNOTAVAIL':
      return `no network interface of this machine has that address (EADDRNOTAVAIL); pass --${flag} with one of its addresses, or ":<port>" for all of them`;
    default:
      return `${err.code ?? err.message}; ${instead}`;
  }
}
