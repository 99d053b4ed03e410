// Runs one child process to completion and collects its output: the helm CLI adapter's (cli.ts) only way to start
// helm. A thin layer over child_process.spawn (execa cost ~3 ms more CPU per process, measured): stdin ignored,
// stdout/stderr as strings without their final newline, SIGTERM on abort or timeout and SIGKILL after a grace
// period. Each child leads its own process group, so that a signal to the operator's group (Ctrl-C in a terminal)
// never reaches helm: only the operator decides when helm stops. Never reads process.env and never logs.
import { type ChildProcess, spawn } from 'node:child_process';

export interface RunProcessOptions {
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Aborting it stops the child: SIGTERM, then SIGKILL after `killGraceMs`. */
  readonly signal: AbortSignal;
  /** The child is stopped the same way after this long. */
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  /** Each whole line of stdout as it arrives (without its newline), before the call settles; must not throw. */
  readonly onStdoutLine?: ((line: string) => void) | undefined;
}

/** How a child process failed: it could not start, exited non-zero, or was stopped. Its output is attached. */
export class ProcessFailure extends Error {
  override readonly name = 'ProcessFailure';
  /** The spawn error's code (e.g. ENOENT) when the process never started. */
  readonly code: string | undefined;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly canceled: boolean;
  readonly timedOut: boolean;
  readonly forceKilled: boolean;
  constructor(
    message: string,
    f: Omit<ProcessFailure, 'name' | 'message' | 'stack' | 'cause'>,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = f.code;
    this.exitCode = f.exitCode;
    this.signal = f.signal;
    this.stdout = f.stdout;
    this.stderr = f.stderr;
    this.canceled = f.canceled;
    this.timedOut = f.timedOut;
    this.forceKilled = f.forceKilled;
  }
}

/** Children still running, so that the composition root can stop them when the operator exits at once. */
const running = new Set<ChildProcess>();

/** Sends `signal` to every child still running (the composition root calls it on a hasty exit). */
export function stopRunningProcesses(signal: NodeJS.Signals = 'SIGTERM'): void {
  for (const child of running) child.kill(signal);
}

export function runProcess(
  file: string,
  args: readonly string[],
  o: RunProcessOptions,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // detached: a process group (and session) of its own. A terminal's Ctrl-C goes to the whole foreground group,
    // and helm cancels an install or upgrade on SIGINT/SIGTERM (`failed: context canceled`); the operator's own
    // graceful stop waits for helm instead (cmd/run.ts). In a container only PID 1 (the operator) is signalled
    // either way, and the PID namespace ends with it, so no helm outlives the pod.
    const child = spawn(file, args, { env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const lines = o.onStdoutLine && lineSplitter(o.onStdoutLine);
    child.stdout?.on('data', (c: Buffer) => {
      out.push(c);
      lines?.(c);
    });
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    let stopped: 'canceled' | 'timedOut' | undefined;
    let forceKilled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'canceled' | 'timedOut') => {
      if (stopped || child.exitCode !== null || child.signalCode !== null) return;
      stopped = why;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => {
        forceKilled = child.kill('SIGKILL');
      }, o.killGraceMs);
    };
    const onAbort = () => stop('canceled');
    o.signal.addEventListener('abort', onAbort, { once: true });
    if (o.signal.aborted) onAbort();
    const timer = setTimeout(() => stop('timedOut'), o.timeoutMs);
    let spawnError: NodeJS.ErrnoException | undefined;
    child.once('error', (e: NodeJS.ErrnoException) => {
      spawnError ??= e;
    });
    child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
      running.delete(child);
      clearTimeout(timer);
      clearTimeout(killTimer);
      o.signal.removeEventListener('abort', onAbort);
      const stdout = text(out);
      const stderr = text(err);
      if (exitCode === 0 && !spawnError && !stopped) {
        resolve({ stdout, stderr });
        return;
      }
      const f = {
        code: spawnError?.code,
        exitCode: spawnError ? undefined : (exitCode ?? undefined),
        signal: signal ?? undefined,
        stdout,
        stderr,
        canceled: stopped === 'canceled',
        timedOut: stopped === 'timedOut',
        forceKilled,
      };
      reject(new ProcessFailure(describe(file, args, f, o.timeoutMs), f, spawnError ? { cause: spawnError } : {}));
    });
  });
}

/** Feeds whole lines of a byte stream to `onLine` (a line split over chunks, or a multi-byte character, waits). */
function lineSplitter(onLine: (line: string) => void): (chunk: Buffer) => void {
  let partial = Buffer.alloc(0);
  return (chunk) => {
    let rest = partial.length > 0 ? Buffer.concat([partial, chunk]) : chunk;
    for (let nl = rest.indexOf(0x0a); nl >= 0; nl = rest.indexOf(0x0a)) {
      onLine(rest.subarray(0, nl).toString('utf8').replace(/\r$/, ''));
      rest = rest.subarray(nl + 1);
    }
    partial = Buffer.from(rest);
  };
}

function text(chunks: Buffer[]): string {
  const s = Buffer.concat(chunks).toString('utf8');
  return s.endsWith('\n') ? s.slice(0, s.endsWith('\r\n') ? -2 : -1) : s;
}

/** "Command failed with exit code 1: helm install …", as short as the facts allow. */
function describe(
  file: string,
  args: readonly string[],
  f: Pick<ProcessFailure, 'code' | 'exitCode' | 'signal' | 'canceled' | 'timedOut'>,
  timeoutMs: number,
): string {
  const command = [file, ...args].join(' ');
  if (f.code !== undefined) return `Command failed with ${f.code}: ${command}`;
  if (f.canceled) return `Command was canceled: ${command}`;
  if (f.timedOut) return `Command timed out after ${timeoutMs} milliseconds: ${command}`;
  if (f.signal !== undefined) return `Command was killed with ${f.signal}: ${command}`;
  return `Command failed with exit code ${f.exitCode}: ${command}`;
}
