// The operator's side of its bash post-renderer (fifo-script.ts): creates the private 0700 post-render directory,
// the script, the request FIFO and the wait FIFO, and answers each call through the caller's own pipes
// (proc-call.ts). Started by the manager before any helm runs; never logs or quotes manifests (they hold values),
// never writes one to disk, and never blocks a libuv thread.
import { execFile } from 'node:child_process';
import { constants, open as openFd } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import {
  FIELD_SEPARATOR,
  postRenderScript,
  REQUESTS_FIFO,
  SCRIPT_FILE,
  SCRIPT_SHELL,
  WAIT_FIFO,
} from './fifo-script.js';
import { type ProcCall, procCall } from './proc-call.js';
import type { PostRenderRequest } from './request.js';

export interface FifoPostRenderOptions {
  /** Created 0700 (with its parents) inside the operator's private work directory; must be its own. */
  readonly dir: string;
  readonly render: (req: PostRenderRequest, signal: AbortSignal) => Promise<string>;
  /** Signals a waiting script (process.kill): SIGUSR1 when its answer is written, SIGUSR2 on an error. */
  readonly kill: (pid: number, signal: 'SIGUSR1' | 'SIGUSR2') => void;
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
  const script = join(o.dir, SCRIPT_FILE);
  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  await writeFile(script, postRenderScript({ waitSeconds: timeoutMs / 1000 + 10 }), { mode: 0o600 });
  const fifos = [fifo, join(o.dir, WAIT_FIFO)];
  await Promise.all(fifos.map((f) => rm(f, { force: true })));
  await mkfifo(fifos, o.signal);
  // Read-write, so that the FIFO never reports EOF while no script has it open; libuv reads it without a thread.
  const fd = await new Promise<number>((resolve, reject) =>
    openFd(fifo, constants.O_RDWR | constants.O_NONBLOCK, (err, n) => (err ? reject(err) : resolve(n))),
  );
  const reader = new Socket({ fd, readable: true, writable: false });
  const stopped = new AbortController();
  const options = { ...o, timeoutMs, script, signal: stopped.signal };
  const records = recordReader((fields) => void answer(fields, options));
  reader.setEncoding('utf8');
  reader.on('data', records);
  reader.on('error', (err) => o.logger.error({ err: errFields(err) }, 'Post-render request FIFO failed'));
  return {
    close: async () => {
      stopped.abort(new Error('the operator is stopping'));
      await Promise.all(fifos.map((f) => rm(f, { force: true })));
      await new Promise<void>((resolve) => {
        reader.once('close', () => resolve());
        reader.destroy();
      });
    },
  };
}

/** Splits the FIFO's text into request lines, and each line into its fields. Pure but for `emit`. */
export function recordReader(emit: (fields: string[]) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) emit(line.split(FIELD_SEPARATOR));
  };
}

function mkfifo(paths: readonly string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('mkfifo', ['-m', '600', '--', ...paths], { signal }, (err) => (err ? reject(err) : resolve()));
  });
}

type AnswerOptions = Required<Pick<FifoPostRenderOptions, 'render' | 'kill' | 'logger' | 'timeoutMs' | 'signal'>> &
  Pick<FifoPostRenderOptions, 'maxBytes'> & { readonly script: string };

/** Answers one call (its PID and args): the manifest from its stdin, the result into its stdout. Never rejects. */
async function answer([pid = '', ...args]: readonly string[], o: AnswerOptions): Promise<void> {
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)]);
  let call: ProcCall;
  try {
    call = procCall(pid, o.script, o.kill);
  } catch (err) {
    o.logger.warn({ err: errFields(err) }, 'Post-render request ignored');
    return;
  }
  try {
    const manifest = await call.readStdin(o.maxBytes ?? 64 * 1024 * 1024, signal);
    const text = await o.render({ args, manifest } satisfies PostRenderRequest, signal);
    await call.writeStdout(text, signal);
    call.finish(true);
  } catch (err) {
    o.logger.warn({ err: errFields(err) }, 'Post-render failed');
    await call.writeStderr(`helm-operator post-render: ${err instanceof Error ? err.message : String(err)}\n`, signal);
    call.finish(false);
  }
}
