// Sends one HTTP request to the API server with node:http/node:https and hands back the streaming response.
// Called by kube/rest.ts; the connection (base URL, auth headers, TLS agent) is prepared by kube/client.ts.
// Must never log or keep request bodies or headers (they carry credentials and Secret data).

import type http from 'node:http';
import https from 'node:https';
import { nodeHttp } from '../core/node-http.js';

/** Where and how to connect; prepare() runs before every request so rotating tokens are picked up. */
export interface Connection {
  /** The server URL from the kubeconfig; its path (if any) prefixes every request path. */
  readonly server: URL;
  prepare(): Promise<{ readonly headers: Readonly<Record<string, string>>; readonly agent: http.Agent }>;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path with query string, e.g. `/api/v1/namespaces?limit=5`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Aborting destroys the request (and the response stream, while it is being read). */
  readonly signal: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  /** The body as it arrives; read it once. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Reads the whole body as UTF-8. */
  text(): Promise<string>;
  /** Drops the rest of the body and closes the stream. */
  discard(): void;
}

export type Send = (request: HttpRequest) => Promise<HttpResponse>;

/** A Send over node:http(s). It rejects with node's own errors; kube/rest.ts maps them. */
export function createSend(connection: Connection): Send {
  const base = connection.server;
  const prefix = base.pathname.replace(/\/+$/, '');
  const request = base.protocol === 'http:' ? nodeHttp.request : https.request;
  return async (req) => {
    const { headers, agent } = await connection.prepare();
    req.signal.throwIfAborted();
    const url = new URL(`${prefix}${req.path}`, base);
    const bodyBytes = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    return new Promise<HttpResponse>((resolve, reject) => {
      const outgoing = request(url, {
        method: req.method,
        agent,
        signal: req.signal,
        headers: {
          ...headers,
          ...req.headers,
          ...(bodyBytes === undefined ? {} : { 'Content-Length': String(bodyBytes.length) }),
        },
      });
      // `on`, not `once`: a destroyed request can emit a second error (e.g. abort after a reset), which would be
      // an uncaught exception without a listener. After the response arrived, errors surface through the body.
      outgoing.on('error', reject);
      outgoing.once('response', (incoming) => {
        incoming.on('error', () => {
          // Reported to whoever iterates the body; this listener only keeps an unread body from crashing.
        });
        resolve({
          status: incoming.statusCode ?? 0,
          body: incoming,
          text: async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of incoming) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks).toString('utf8');
          },
          discard: () => {
            incoming.destroy();
          },
        });
      });
      outgoing.end(bodyBytes);
    });
  };
}
