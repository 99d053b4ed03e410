// A TLS-terminating HTTP proxy in front of the plane's API server that can answer some requests itself with 429
// (Retry-After) or 500 and a Kubernetes Status body, for the network chaos scenario; it serves the API server's own
// certificate and forwards with the admin client certificate. Never changes a request it forwards; close() ends it.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:https';
import { join } from 'node:path';

export interface Injection {
  readonly status: 429 | 500;
  /** Answer every `every`-th request that qualifies (1: all of them). */
  readonly every: number;
  /** Watches qualify too (else only the other requests). */
  readonly watches: boolean;
}

export interface HttpFaultProxy {
  readonly port: number;
  inject(i: Injection | undefined): void;
  /** Requests forwarded, and injected answers by status. */
  counts(): { readonly forwarded: number; readonly 429: number; readonly 500: number };
  close(): Promise<void>;
}

/** The Status body the API server itself would send for `status`. */
export function statusBody(status: 429 | 500): string {
  const tooMany = status === 429;
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: tooMany ? 'chaos: too many requests, please try again later' : 'chaos: injected internal error',
    reason: tooMany ? 'TooManyRequests' : 'InternalError',
    details: { retryAfterSeconds: 1 },
    code: status,
  });
}

export const isWatch = (url: string) => /[?&]watch=(true|1)(&|$)/.test(url);

/** Starts the proxy; `pki` is the plane's folder with ca.crt, apiserver.crt/.key and admin.crt/.key. */
export async function startHttpFaultProxy(pki: string, server: URL): Promise<HttpFaultProxy> {
  const read = (f: string) => readFileSync(join(pki, f));
  const agent = new Agent({ keepAlive: true, ca: read('ca.crt'), cert: read('admin.crt'), key: read('admin.key') });
  let injection: Injection | undefined;
  let seen = 0;
  const counts = { forwarded: 0, 429: 0, 500: 0 };

  const https = createServer({ cert: read('apiserver.crt'), key: read('apiserver.key') }, (req, res) => {
    const url = req.url ?? '/';
    const i = injection;
    if (i && (i.watches || !isWatch(url)) && ++seen % i.every === 0) {
      counts[i.status]++;
      const body = statusBody(i.status);
      res.writeHead(i.status, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        ...(i.status === 429 ? { 'Retry-After': '1' } : {}),
      });
      req.resume();
      res.end(body);
      return;
    }
    counts.forwarded++;
    const headers = { ...req.headers, host: server.host };
    const up = request({ host: server.hostname, port: server.port, method: req.method, path: url, headers, agent });
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
      r.on('error', () => res.destroy());
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
  });
  // Idle client connections live about as long as the API server's (90 s), as the operator would see without us.
  https.keepAliveTimeout = 90_000;
  https.headersTimeout = 0;
  https.requestTimeout = 0;
  https.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const a = https.address();
  const port = typeof a === 'object' && a !== null ? a.port : 0;

  return {
    port,
    inject(next) {
      injection = next;
      seen = 0;
    },
    counts: () => ({ ...counts }),
    async close() {
      https.closeAllConnections();
      await new Promise<void>((r) => https.close(() => r()));
      agent.destroy();
    },
  };
}
