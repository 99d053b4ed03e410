import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../core/logger.js';
import { postRenderScript, REQUESTS_FIFO, SCRIPT_FILE } from './fifo-script.js';
import { type FifoPostRenderServer, fifoPostRenderer, startFifoPostRenderServer } from './fifo-server.js';
import type { PostRenderRequest } from './request.js';

/** The call's files go once both sides are done (the server may still be cleaning up when the script exits). */
const expectOnlyServerFiles = () =>
  vi.waitFor(async () => expect((await readdir(dir)).sort()).toEqual([SCRIPT_FILE, REQUESTS_FIFO].sort()), {
    timeout: 5_000,
    interval: 20,
  });

const SECRET = 'hunter2-very-secret';
const MANIFEST = [
  '---',
  'apiVersion: v1',
  'kind: Secret',
  'metadata:',
  '  name: web',
  'stringData:',
  `  password: ${SECRET}`,
  '',
].join('\n');

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

let work = '';
let dir = '';
let server: FifoPostRenderServer | undefined;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'fifo-post-render-'));
  dir = join(work, 'post-render');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(work, { recursive: true, force: true });
});

async function start(render: (req: PostRenderRequest, signal: AbortSignal) => Promise<string>, maxBytes?: number) {
  const { logger, lines } = recordingLogger();
  server = await startFifoPostRenderServer({
    dir,
    render,
    logger,
    signal: AbortSignal.timeout(10_000),
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
  return lines;
}

/** Runs the post-renderer as helm does: the command, its fixed args, the per-call args, the manifest on stdin. */
function postRender(manifest: string, args: readonly string[] = []) {
  const pr = fifoPostRenderer(dir);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(pr.command, [...pr.args, ...args], { stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => {});
    child.stdin.end(manifest);
  });
}

describe('when the operator renders the manifest', { timeout: 30_000 }, () => {
  it('hands the render function the per-call args and the manifest, and prints its answer', async () => {
    const seen: { req: PostRenderRequest; aborted: boolean }[] = [];
    await start(async (req, signal) => {
      seen.push({ req, aborted: signal.aborted });
      return `rendered:${req.manifest.length}\n`;
    });

    const res = await postRender(MANIFEST, ['--x=1', '--chart=nginx', '--with space=a b']);

    expect(res).toEqual({ code: 0, stdout: `rendered:${MANIFEST.length}\n`, stderr: '' });
    expect(seen).toEqual([
      { req: { args: ['--x=1', '--chart=nginx', '--with space=a b'], manifest: MANIFEST }, aborted: false },
    ]);
  });

  it('passes no args when helm gives none, and an empty manifest through', async () => {
    const seen: PostRenderRequest[] = [];
    await start(async (req) => {
      seen.push(req);
      return 'ok';
    });
    expect(await postRender('')).toEqual({ code: 0, stdout: 'ok', stderr: '' });
    expect(seen).toEqual([{ args: [], manifest: '' }]);
  });

  it('answers many concurrent calls with large manifests, each its own, and leaves no call files behind', async () => {
    await start(async (req) => `${req.args.join(',')}\n${req.manifest}`);
    const big = 'x: y\n'.repeat(400_000);

    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => postRender(`${big}${i}\n`, [`--i=${i}`])));

    results.forEach((r, i) => {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`--i=${i}\n${big}${i}\n`);
    });
    await expectOnlyServerFiles();
  });

  it('keeps the post-render directory private to the operator and the request FIFO a FIFO', async () => {
    await start(async () => 'ok');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, REQUESTS_FIFO))).isFIFO()).toBe(true);
    expect(await readFile(join(dir, SCRIPT_FILE), 'utf8')).toContain('helm-operator post-renderer');
  });
});

describe('when the render function throws', { timeout: 30_000 }, () => {
  it('exits 1 with the message on stderr, and neither stderr, stdout nor the logs carry the manifest', async () => {
    const lines = await start(async () => {
      throw new Error('unknown kind Widget');
    });

    const res = await postRender(MANIFEST, ['--x=1']);

    expect(res).toEqual({ code: 1, stdout: '', stderr: 'helm-operator post-render: unknown kind Widget\n' });
    expect(lines.join('\n')).toContain('unknown kind Widget');
    expect(lines.join('\n')).not.toContain(SECRET);
    await expectOnlyServerFiles();
  });

  it('refuses a manifest larger than maxBytes, without calling the render function', async () => {
    let calls = 0;
    await start(async () => {
      calls++;
      return 'never';
    }, 1024);
    const res = await postRender('x'.repeat(64 * 1024));
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('post-render request larger than 1024 bytes');
    expect(calls).toBe(0);
  });
});

describe('when the operator is not running', { timeout: 30_000 }, () => {
  it('exits 1 saying so once the server is closed, without waiting for an answer', async () => {
    await start(async () => 'ok');
    expect((await postRender('')).code).toBe(0);

    await server?.close();
    server = undefined;

    const res = await postRender(MANIFEST);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('helm-operator post-render: the operator is not running');
    expect(res.stderr).not.toContain(SECRET);
  });
});

describe('when the operator was killed and left its request FIFO behind', { timeout: 30_000 }, () => {
  it('exits 1 once the wait is over, saying that no answer came, and removes its call files', async () => {
    await mkdir(dir, { mode: 0o700 });
    await writeFile(join(dir, SCRIPT_FILE), postRenderScript({ waitSeconds: 1 }));
    execFileSync('mkfifo', [join(dir, REQUESTS_FIFO)]);

    const res = await postRender(MANIFEST, ['--x=1']);

    expect(res).toEqual({
      code: 1,
      stdout: '',
      stderr: 'helm-operator post-render: no answer from the operator within 1s\n',
    });
    await expectOnlyServerFiles();
  });
});
