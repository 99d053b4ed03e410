// The operator's side of its own Helm post-renderer: a small HTTP server on a unix socket (in the operator's
// private 0700 work directory) that the `helm-operator post-render` child forwards each rendered manifest to.
// Started by the composition root; answers with the transformed manifest. Never logs manifests (they hold values).

import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';

export interface PostRenderRequest {
  /** The per-call arguments the reconciler gave helm (`--post-renderer-args`). */
  readonly args: readonly string[];
  readonly manifest: string;
}

export interface PostRenderServerOptions {
  readonly socketPath: string;
  readonly render: (req: PostRenderRequest, signal: AbortSignal) => Promise<string>;
  readonly logger: Logger;
  /** Larger requests are refused. @default 64 MiB */
  readonly maxBytes?: number;
  /** Per request. @default 60_000 */
  readonly timeoutMs?: number;
}

export interface PostRenderServer {
  close(): Promise<void>;
}

export async function startPostRenderServer(o: PostRenderServerOptions): Promise<PostRenderServer> {
  const maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
  const server = createServer((req, res) => {
    const reply = (status: number, body: string) => {
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(body);
    };
    if (req.method !== 'POST' || req.url !== '/post-render') return reply(404, 'not found\n');
    // Rendering stops when helm (or the child) goes away, or after the timeout.
    const gone = new AbortController();
    res.on('close', () => gone.abort(new Error('the post-render client went away')));
    const signal = AbortSignal.any([gone.signal, AbortSignal.timeout(o.timeoutMs ?? 60_000)]);
    readBody(req, maxBytes)
      .then((body) => o.render(parseRequest(body), signal))
      .then(
        (out) => reply(200, out),
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          o.logger.warn({ err: errFields(err) }, 'Post-render failed');
          reply(err instanceof TooLargeError ? 413 : 422, `${message}\n`);
        },
      );
  });
  await rm(o.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

class TooLargeError extends Error {}

/** The request body, or a TooLargeError once it exceeds `maxBytes` (the rest is drained, so the reply gets out). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBytes) chunks.push(c);
    });
    req.on('end', () => {
      if (size > maxBytes) reject(new TooLargeError(`post-render request larger than ${maxBytes} bytes`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** Parses `{args, manifest}`; its errors never quote the body (it holds values). */
function parseRequest(body: string): PostRenderRequest {
  let parsed: Partial<PostRenderRequest>;
  try {
    parsed = JSON.parse(body) as Partial<PostRenderRequest>;
  } catch {
    throw new Error('post-render request is not valid JSON');
  }
  if (!Array.isArray(parsed.args) || typeof parsed.manifest !== 'string') {
    throw new Error('post-render request needs {args: string[], manifest: string}');
  }
  return { args: parsed.args.map(String), manifest: parsed.manifest };
}
