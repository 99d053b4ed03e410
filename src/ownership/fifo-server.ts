// The operator's side of its bash post-renderer (fifo-script.ts): creates the private 0700 post-render directory,
// the script and the request FIFO, and answers each call's files with the transformed manifest. Started by the
// manager before any helm runs; never logs or quotes manifests (they hold values) and never blocks a libuv thread.
import { execFile } from 'node:child_process';
import { constants, open as openFd } from 'node:fs';
import { mkdir, open, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { CALL_PREFIX, postRenderScript, REQUESTS_FIFO, SCRIPT_FILE, SCRIPT_SHELL } from './fifo-script.js';
import type { PostRenderRequest } from './request.js';

export interface FifoPostRenderOptions {
  /** Created 0700 (with its parents) inside the operator's private work directory; must be its own. */
  readonly dir: string;
  readonly render: (req: PostRenderRequest, signal: AbortSignal) => Promise<string>;
  readonly logger: Logger;
  /** Larger manifests are refused. @default 64 MiB */
  readonly maxBytes?: number;
  /** Per request; the script waits 10 s longer for the answer. @default 60_000 */
  readonly timeoutMs?: number;
  /** Aborts the startup (mkfifo). */
  readonly signal: AbortSignal;
}

export interface FifoPostRenderServer {
  close(): Promise<void>;
}

/** What helm runs: `bash DIR/post-render.sh DIR`, each call appending its own args. Pure. */
export function fifoPostRenderer(dir: string): { readonly command: string; readonly args: readonly string[] } {
  return { command: SCRIPT_SHELL, args: [join(dir, SCRIPT_FILE), dir] };
}

export async function startFifoPostRenderServer(o: FifoPostRenderOptions): Promise<FifoPostRenderServer> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const fifo = join(o.dir, REQUESTS_FIFO);
  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  await writeFile(join(o.dir, SCRIPT_FILE), postRenderScript({ waitSeconds: timeoutMs / 1000 + 10 }), {
    mode: 0o600,
  });
  await rm(fifo, { force: true });
  await mkfifo(fifo, o.signal);
  // Read-write, so that the FIFO never reports EOF while no script has it open; libuv reads it without a thread.
  const fd = await new Promise<number>((resolve, reject) =>
    openFd(fifo, constants.O_RDWR | constants.O_NONBLOCK, (err, n) => (err ? reject(err) : resolve(n))),
  );
  const reader = new Socket({ fd, readable: true, writable: false });
  const stopped = new AbortController();
  let pending = '';
  reader.setEncoding('utf8');
  reader.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      void answer(line, { ...o, timeoutMs, signal: stopped.signal });
    }
  });
  reader.on('error', (err) => o.logger.error({ err: errFields(err) }, 'Post-render request FIFO failed'));
  return {
    close: async () => {
      stopped.abort(new Error('the operator is stopping'));
      await rm(fifo, { force: true });
      await new Promise<void>((resolve) => {
        reader.once('close', () => resolve());
        reader.destroy();
      });
    },
  };
}

function mkfifo(path: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('mkfifo', ['-m', '600', '--', path], { signal }, (err) => (err ? reject(err) : resolve()));
  });
}

type AnswerOptions = Required<Pick<FifoPostRenderOptions, 'dir' | 'render' | 'logger' | 'timeoutMs' | 'signal'>> &
  Pick<FifoPostRenderOptions, 'maxBytes'>;

/** Answers one call (its file prefix `p`), then removes its files. Never rejects. */
async function answer(p: string, o: AnswerOptions): Promise<void> {
  if (dirname(p) !== o.dir || !CALL_PREFIX.test(basename(p))) {
    o.logger.warn({ request: p }, 'Post-render request outside the post-render directory ignored');
    return;
  }
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)]);
  let ok = false;
  let text: string;
  try {
    text = await o.render(await readRequest(p, o.maxBytes ?? 64 * 1024 * 1024), signal);
    ok = true;
  } catch (err) {
    o.logger.warn({ err: errFields(err) }, 'Post-render failed');
    text = `${err instanceof Error ? err.message : String(err)}\n`;
  }
  try {
    await writeFile(`${p}.out`, text);
    await reply(`${p}.reply`, ok ? 'ok\n' : 'error\n');
  } catch (err) {
    // The script went away (helm was stopped or timed out): nobody is left to answer.
    o.logger.debug({ err: errFields(err) }, 'Post-render caller gone');
  } finally {
    // readRequest removed the args and the manifest.
    await Promise.all([rm(`${p}.out`, { force: true }), rm(`${p}.reply`, { force: true })]);
  }
}

/** The call's args and manifest; both files are removed once read. Errors never quote their content. */
async function readRequest(p: string, maxBytes: number): Promise<PostRenderRequest> {
  try {
    if ((await stat(`${p}.manifest`)).size > maxBytes) {
      throw new Error(`post-render request larger than ${maxBytes} bytes`);
    }
    const [args, manifest] = await Promise.all([readFile(`${p}.args`, 'utf8'), readFile(`${p}.manifest`, 'utf8')]);
    return { args: args === '' ? [] : args.replace(/\0$/, '').split('\0'), manifest };
  } finally {
    await Promise.all([unlink(`${p}.args`).catch(() => {}), unlink(`${p}.manifest`).catch(() => {})]);
  }
}

/** Writes the status line without blocking: O_NONBLOCK fails with ENXIO when the script no longer holds the FIFO. */
async function reply(path: string, line: string): Promise<void> {
  const fh = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
  try {
    await fh.write(line);
  } finally {
    await fh.close();
  }
}
