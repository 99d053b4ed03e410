import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingLogger } from '../../test/fakes/logger.js';
import { postRenderScript, REQUESTS_FIFO, SCRIPT_FILE, WAIT_FIFO } from './fifo-script.js';
import { type FifoPostRenderServer, fifoPostRenderer, recordReader, startFifoPostRenderServer } from './fifo-server.js';
import type { PostRenderRequest } from './request.js';

/** No call writes a file: the directory holds the script and the two FIFOs, nothing else. */
const expectOnlyServerFiles = async () =>
  expect((await readdir(dir)).sort()).toEqual([SCRIPT_FILE, REQUESTS_FIFO, WAIT_FIFO].sort());

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
  const { logger, text } = recordingLogger();
  server = await startFifoPostRenderServer({
    dir,
    render,
    kill: (pid, sig) => process.kill(pid, sig),
    logger,
    signal: AbortSignal.timeout(10_000),
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
  return { text };
}

/**
 * Runs the post-renderer as helm does: the command, its fixed args, the per-call args, the manifest on stdin, with
 * pipes (not Node's socket pairs) as its stdin, stdout and stderr; `direct` hands it Node's own stdio instead.
 */
function postRender(manifest: string, args: readonly string[] = [], direct = false) {
  const pr = fifoPostRenderer(dir);
  const viaPipes = ['-c', 'set -o pipefail; cat | "$@" 2> >(cat >&2) | cat', 'pipes', pr.command];
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const argv = [...pr.args, ...args];
    const child = direct ? spawn(pr.command, argv, { stdio: 'pipe' }) : spawn('bash', [...viaPipes, ...argv]);
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

  it('answers many concurrent calls with large manifests, each its own, and writes no file', async () => {
    await start(async (req) => `${req.args.join(',')}\n${req.manifest}`);
    const big = 'x: y\n'.repeat(400_000);

    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => postRender(`${big}${i}\n`, [`--i=${i}`])));

    results.forEach((r, i) => {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`--i=${i}\n${big}${i}\n`);
    });
    await expectOnlyServerFiles();
  });

  it('answers 40 calls started at the same moment, each with its own args and manifest', async () => {
    await start(async (req) => `${req.args.join('|')}:${req.manifest}`);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postRender(`m${i}\n`, [`--i=${i}`, `--name=cr-${i}`])),
    );
    expect(results).toEqual(
      results.map((_, i) => ({ code: 0, stdout: `--i=${i}|--name=cr-${i}:m${i}\n`, stderr: '' })),
    );
  });

  it('keeps the post-render directory private to the operator and the request and wait FIFOs FIFOs', async () => {
    await start(async () => 'ok');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, REQUESTS_FIFO))).isFIFO()).toBe(true);
    expect((await stat(join(dir, WAIT_FIFO))).isFIFO()).toBe(true);
    expect(await readFile(join(dir, SCRIPT_FILE), 'utf8')).toContain('helm-operator post-renderer');
  });
});

describe('when the render function throws', { timeout: 30_000 }, () => {
  it('exits 1 with the message on stderr, and neither stderr, stdout nor the logs carry the manifest', async () => {
    const log = await start(async () => {
      throw new Error('unknown kind Widget');
    });

    const res = await postRender(MANIFEST, ['--x=1']);

    expect(res).toEqual({ code: 1, stdout: '', stderr: 'helm-operator post-render: unknown kind Widget\n' });
    expect(log.text()).toContain('unknown kind Widget');
    expect(log.text()).not.toContain(SECRET);
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

describe('when the operator was killed and left its FIFOs behind', { timeout: 30_000 }, () => {
  it('exits 1 once the wait is over, saying that no answer came, and writes no file', async () => {
    await mkdir(dir, { mode: 0o700 });
    await writeFile(join(dir, SCRIPT_FILE), postRenderScript({ waitSeconds: 1 }));
    execFileSync('mkfifo', [join(dir, REQUESTS_FIFO), join(dir, WAIT_FIFO)]);

    const res = await postRender(MANIFEST, ['--x=1']);

    expect(res).toEqual({
      code: 1,
      stdout: '',
      stderr: 'helm-operator post-render: no answer from the operator within 1s\n',
    });
    await expectOnlyServerFiles();
  });
});

describe('when the signal races the script into its wait', { timeout: 60_000 }, () => {
  it('acts on a signal sent the moment the request arrives within one wait slice, not the whole wait', async () => {
    await mkdir(dir, { mode: 0o700 });
    await writeFile(join(dir, SCRIPT_FILE), postRenderScript({ waitSeconds: 30 }));
    execFileSync('mkfifo', [join(dir, REQUESTS_FIFO), join(dir, WAIT_FIFO)]);
    const requests = await open(join(dir, REQUESTS_FIFO), 'r+'); // read-write: the open never blocks
    const stream = requests.createReadStream();
    stream.on('data', (chunk) => {
      for (const line of String(chunk).split('\n').filter(Boolean))
        process.kill(Number(line.split('\t')[0]), 'SIGUSR1');
    });
    try {
      for (let round = 0; round < 10; round++) {
        const started = performance.now();
        const results = await Promise.all(Array.from({ length: 10 }, () => postRender('')));
        expect(results.map((r) => r.code)).toEqual(results.map(() => 0));
        expect(performance.now() - started).toBeLessThan(5_000); // a lost signal used to wait all 30 s
      }
    } finally {
      stream.destroy();
    }
  });
});

describe('when the post-renderer is not run as helm runs it', { timeout: 30_000 }, () => {
  it('exits 1 at once when its stdin or stdout is not a pipe, and the operator is not asked', async () => {
    let calls = 0;
    await start(async () => {
      calls++;
      return 'never';
    });
    const res = await postRender(MANIFEST, [], true);
    expect(res).toEqual({
      code: 1,
      stdout: '',
      stderr: 'helm-operator post-render: stdin and stdout must be pipes, as helm gives them\n',
    });
    expect(calls).toBe(0);
  });
});

describe('when a request names a process that is not the post-renderer', { timeout: 30_000 }, () => {
  it('ignores it: no render, no signal, and a warning in the log', async () => {
    let calls = 0;
    const log = await start(async () => {
      calls++;
      return 'never';
    });
    const other = spawn('bash', ['-c', 'trap "exit 3" USR1 USR2; read -r -t 20 _ <> <(:)'], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => other.on('exit', (code) => resolve(code)));
    await writeFile(join(dir, REQUESTS_FIFO), `${other.pid}\t--x=1\n`);

    await vi.waitFor(() => expect(log.text()).toContain('Post-render request ignored'), { timeout: 5_000 });
    expect(log.text()).toContain(`process ${other.pid} is not the post-renderer`);
    expect(calls).toBe(0);
    other.kill('SIGTERM');
    expect(await exited).toBeNull(); // ended by our SIGTERM, not by a post-render signal (exit 3)
  });
});

describe('recordReader', () => {
  it('yields each request line split into its fields, across chunk boundaries', () => {
    const seen: string[][] = [];
    const feed = recordReader((fields) => seen.push(fields));
    feed('12\t--a=1\t--b=');
    expect(seen).toEqual([]);
    feed('2\n34\n56\t--c=3');
    feed('\n');
    expect(seen).toEqual([['12', '--a=1', '--b=2'], ['34'], ['56', '--c=3']]);
  });
});
