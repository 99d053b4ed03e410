// One post-render call seen from the operator: the waiting script's stdin, stdout and stderr, opened through
// /proc/PID/fd (helm gives the script pipes), and the signal that ends the script (fifo-script.ts has the
// protocol). Used by fifo-server.ts only. Never blocks: /proc is read and opened synchronously (procfs answers
// from memory; a thread-pool hop per call costs more than the call) and the pipes are O_NONBLOCK, read and written
// by the event loop. Never writes to anything but a pipe or a terminal, and never signals a process that is not
// the caller (its command line and start time are checked).
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { OperatorError } from '../core/errors.js';
import { STDOUT_COPY_FD } from './fifo-script.js';

/** A caller that is not (or no longer) the operator's script, or whose pipes cannot be reached. */
export class PostRenderCallError extends OperatorError {
  readonly code = 'POST_RENDER_CALL_INVALID';
}

export interface ProcCall {
  readonly pid: number;
  /** The rendered manifest: the script's stdin until helm closes it. */
  readStdin(maxBytes: number, signal: AbortSignal): Promise<string>;
  /** Writes `text` into the script's stdout (helm's buffer) and closes it. */
  writeStdout(text: string, signal: AbortSignal): Promise<void>;
  /** Best effort: the message on the script's stderr when it is a pipe or a terminal. */
  writeStderr(text: string, signal: AbortSignal): Promise<void>;
  /** Ends the script: exit 0 (`ok`) or 1. Nothing when it is gone (or its PID now names another process). */
  finish(ok: boolean): void;
}

/** Checks that PID runs `script` (argv[1]) and remembers its start time. */
export function procCall(
  pidText: string,
  script: string,
  kill: (pid: number, signal: 'SIGUSR1' | 'SIGUSR2') => void,
): ProcCall {
  const pid = Number(pidText);
  if (!/^[1-9][0-9]{0,9}$/.test(pidText) || pid <= 1) {
    throw new PostRenderCallError(`bad caller process id ${JSON.stringify(pidText.slice(0, 40))}`);
  }
  const started = identity(pid, script);
  const fd = (n: number) => `/proc/${pid}/fd/${n}`;
  return {
    pid,
    readStdin: (maxBytes, signal) => readPipe(fd(0), maxBytes, signal),
    writeStdout: (text, signal) => writePipe(fd(STDOUT_COPY_FD), text, signal, true),
    writeStderr: (text, signal) => writePipe(fd(2), text, signal, false).catch(() => {}),
    finish(ok) {
      try {
        if (startTime(pid) === started) kill(pid, ok ? 'SIGUSR1' : 'SIGUSR2');
      } catch {
        // It exited (helm was stopped) in between.
      }
    },
  };
}

/** The process' start time, once its argv[1] is `script`. Throws PostRenderCallError. */
function identity(pid: number, script: string): string {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch (err) {
    throw new PostRenderCallError(`caller process ${pid} is gone`, { cause: err });
  }
  if (cmdline.split('\0')[1] !== script) throw new PostRenderCallError(`process ${pid} is not the post-renderer`);
  return startTime(pid);
}

/** Field 22 of /proc/PID/stat (clock ticks since boot); the command name may hold spaces, so count from its end. */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  if (start === undefined) throw new PostRenderCallError(`cannot read the start time of process ${pid}`);
  return start;
}

/** Opens the caller's pipe (O_NONBLOCK); refuses anything else but, for stderr, a terminal. */
function openPipe(path: string, flags: number, what: string, allowTty: boolean): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PostRenderCallError(`cannot open the post-renderer's ${what} (${path}): ${code}`, { cause: err });
  }
  const s = fstatSync(fd);
  if (s.isFIFO() || (allowTty && s.isCharacterDevice())) return fd;
  closeSync(fd);
  throw new PostRenderCallError(`the post-renderer's ${what} is not a pipe`);
}

async function readPipe(path: string, maxBytes: number, signal: AbortSignal): Promise<string> {
  const fd = openPipe(path, constants.O_RDONLY, 'stdin', false);
  const pipe = new Socket({ fd, readable: true, writable: false });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of pipe.iterator({ destroyOnReturn: true }) as AsyncIterable<Buffer>) {
      signal.throwIfAborted();
      size += chunk.length;
      if (size > maxBytes) throw new PostRenderCallError(`post-render request larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  } finally {
    pipe.destroy();
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

async function writePipe(path: string, text: string, signal: AbortSignal, required: boolean): Promise<void> {
  const fd = openPipe(path, constants.O_WRONLY, required ? 'stdout' : 'stderr', !required);
  const pipe = new Socket({ fd, readable: false, writable: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      pipe.once('error', reject);
      pipe.end(text, () => {
        signal.removeEventListener('abort', abort);
        resolve();
      });
    });
  } finally {
    pipe.destroy();
  }
}
