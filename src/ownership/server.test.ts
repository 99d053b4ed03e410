import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postRender } from '../cmd/post-render.js';
import type { Logger } from '../core/logger.js';
import { type PostRenderRequest, type PostRenderServer, startPostRenderServer } from './server.js';

const MANIFEST = [
  '---',
  '# Source: nginx/templates/secret.yaml',
  'apiVersion: v1',
  'kind: Secret',
  'metadata:',
  '  name: web',
  'stringData:',
  '  password: hunter2-very-secret',
  '',
].join('\n');
const SECRET = 'hunter2-very-secret';

/** A writable stream that keeps everything written to it. */
function collector() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

function io(manifest: string) {
  const stdout = collector();
  const stderr = collector();
  return {
    io: { stdin: Readable.from([Buffer.from(manifest)]), stdout: stdout.stream, stderr: stderr.stream },
    stdout: stdout.text,
    stderr: stderr.text,
  };
}

/** A logger that records every call, to check that no manifest reaches the logs. */
function recordingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (obj: object, msg: string) => {
    lines.push(`${level} ${msg} ${JSON.stringify(obj)}`);
  };
  const logger: Logger = {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return { logger, lines };
}

/** A raw request to the server, for what the post-render child never sends. */
function raw(socketPath: string, method: string, path: string, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request({ socketPath, method, path }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

let dir = '';
let socketPath = '';
let server: PostRenderServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'post-render-'));
  socketPath = join(dir, 'pr.sock');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(render: (req: PostRenderRequest, signal: AbortSignal) => Promise<string>, maxBytes?: number) {
  const { logger, lines } = recordingLogger();
  server = await startPostRenderServer({ socketPath, render, logger, ...(maxBytes === undefined ? {} : { maxBytes }) });
  return lines;
}

describe('when the operator renders the manifest', () => {
  it('hands the render function the args without --socket and the manifest, and prints its answer', async () => {
    const seen: { req: PostRenderRequest; aborted: boolean }[] = [];
    await start(async (req, signal) => {
      seen.push({ req, aborted: signal.aborted });
      return `rendered:${req.manifest.length}\n`;
    });
    const t = io(MANIFEST);

    const code = await postRender([`--socket=${socketPath}`, '--x=1', '--chart=nginx'], t.io);

    expect(code).toBe(0);
    expect(seen).toEqual([{ req: { args: ['--x=1', '--chart=nginx'], manifest: MANIFEST }, aborted: false }]);
    expect(t.stdout()).toBe(`rendered:${MANIFEST.length}\n`);
    expect(t.stderr()).toBe('');
  });

  it('finds --socket wherever it is among the args', async () => {
    const seen: PostRenderRequest[] = [];
    await start(async (req) => {
      seen.push(req);
      return 'ok';
    });
    const t = io('');
    expect(await postRender(['--a=1', `--socket=${socketPath}`, '--b=2'], t.io)).toBe(0);
    expect(seen).toEqual([{ args: ['--a=1', '--b=2'], manifest: '' }]);
  });

  it('passes a large manifest through unchanged', async () => {
    await start(async (req) => req.manifest);
    const big = `${'x: y\n'.repeat(200_000)}`;
    const t = io(big);
    expect(await postRender([`--socket=${socketPath}`], t.io)).toBe(0);
    expect(t.stdout()).toBe(big);
  });
});

describe('when the render function throws', () => {
  it('exits 1 with the message on stderr, and neither stderr, stdout nor the logs carry the manifest', async () => {
    const lines = await start(async () => {
      throw new Error('unknown kind Widget');
    });
    const t = io(MANIFEST);

    const code = await postRender([`--socket=${socketPath}`, '--x=1'], t.io);

    expect(code).toBe(1);
    expect(t.stderr()).toBe('helm-operator post-render: unknown kind Widget\n');
    expect(t.stderr()).not.toContain(SECRET);
    expect(t.stdout()).toBe('');
    expect(lines.join('\n')).toContain('unknown kind Widget');
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});

describe('when --socket is missing', () => {
  it('exits 2 and says that --socket is required, without reading stdin', async () => {
    const t = io(MANIFEST);
    expect(await postRender(['--x=1'], t.io)).toBe(2);
    expect(t.stderr()).toContain('--socket=PATH is required');
    expect(t.stdout()).toBe('');
  });
});

describe('when the socket cannot be reached', () => {
  it('exits 1 saying that it cannot reach the operator', async () => {
    const t = io(MANIFEST);
    expect(await postRender([`--socket=${join(dir, 'nobody-listens.sock')}`], t.io)).toBe(1);
    expect(t.stderr()).toMatch(/^helm-operator post-render: cannot reach the operator: /);
    expect(t.stderr()).not.toContain(SECRET);
    expect(t.stdout()).toBe('');
  });
});

describe('startPostRenderServer', () => {
  it('replaces a stale file at the socket path', async () => {
    await writeFile(socketPath, 'left over by a previous run');
    await start(async () => 'fresh');
    const t = io('');
    expect(await postRender([`--socket=${socketPath}`], t.io)).toBe(0);
    expect(t.stdout()).toBe('fresh');
  });

  it('answers 404 to anything but POST /post-render', async () => {
    await start(async () => 'never');
    expect((await raw(socketPath, 'GET', '/post-render', '')).status).toBe(404);
    expect((await raw(socketPath, 'POST', '/other', '{}')).status).toBe(404);
  });

  it('answers 422 to a request without args and manifest, without calling the render function', async () => {
    let calls = 0;
    await start(async () => {
      calls++;
      return 'never';
    });
    const res = await raw(socketPath, 'POST', '/post-render', JSON.stringify({ manifest: 'x' }));
    expect(res.status).toBe(422);
    expect(res.text).toContain('needs {args: string[], manifest: string}');
    expect(calls).toBe(0);
  });

  it('refuses a request larger than maxBytes, without calling the render function', async () => {
    let calls = 0;
    await start(async () => {
      calls++;
      return 'never';
    }, 1024);
    const t = io('x'.repeat(64 * 1024));
    expect(await postRender([`--socket=${socketPath}`], t.io)).toBe(1);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toContain('post-render request larger than 1024 bytes');
    expect(calls).toBe(0);
  });

  it('stops answering once closed', async () => {
    await start(async () => 'ok');
    const before = io('');
    expect(await postRender([`--socket=${socketPath}`], before.io)).toBe(0);

    await server?.close();
    server = undefined;

    const after = io('');
    expect(await postRender([`--socket=${socketPath}`], after.io)).toBe(1);
    expect(after.stderr()).toContain('cannot reach the operator');
  });
});
