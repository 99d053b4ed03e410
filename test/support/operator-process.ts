// The one launcher of the real operator (`node dist/cmd/main.js run`) for the integration tests, chaos/ and bench/: its
// own process group (a kill takes the operator and its helm children, each in a group of its own, at once, as a
// container kill does), its output
// written to a file as a container runtime writes a log, and that JSON log followed as typed records. Used by
// test/support/operator.ts, the image-stages test, chaos/kit/operator.ts and bench/operator-process.ts; never signals a
// group it did not start. Also the image's environment (the Dockerfile's ENV lines), which bench/ and chaos/soak.ts
// give the operator they launch.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** One line of the operator's JSON log (pino's fields, plus whatever the line carries). */
export interface LogRecord {
  readonly level?: string;
  readonly msg?: string;
  /** ISO time. */
  readonly time?: string;
  readonly [field: string]: unknown;
}

/** The record of a JSON log line; undefined for anything else (a torn line, a Node warning). */
export function parseLogLine(line: string): LogRecord | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null ? (v as LogRecord) : undefined;
  } catch {
    return undefined;
  }
}

export interface LaunchOptions {
  /** The repository root: the operator's working directory (dist/cmd/main.js and charts/ resolve from there). */
  readonly root: string;
  /** KUBECONFIG. @default as in `env` */
  readonly kubeconfig?: string;
  /** `run --watches-file`. @default the operator's (./watches.yaml) */
  readonly watchesFile?: string;
  /** The helm binary (HELM_BINARY). @default as in `env` */
  readonly helm?: string;
  /** Flags after `run --watches-file=…`. */
  readonly args?: readonly string[];
  /** The environment to start from. @default process.env (KUBECONFIG and HELM_BINARY are set on top) */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The operator as an image runs it: its ENTRYPOINT (with `args` after it), working directory and user, instead of
   * `node dist/cmd/main.js run` in the repository. @default the repository's build
   */
  readonly entrypoint?: {
    readonly command: string;
    readonly args: readonly string[];
    readonly cwd: string;
    readonly uid?: number | undefined;
    readonly gid?: number | undefined;
  };
  /** Where the operator's stdout and stderr go (created, or truncated unless `appendLog`). */
  readonly logFile: string;
  /** Append to `logFile` (a restarted operator's log after the last one's); only the new lines are followed. */
  readonly appendLog?: boolean;
  /** Called for each complete log line, in order, as the file is followed (every 50 ms, and on each read). */
  readonly onLine?: (line: string, record: LogRecord | undefined) => void;
}

export interface OperatorProcess {
  readonly pid: number;
  /** Whether the operator has not exited yet. */
  running(): boolean;
  /** Everything logged so far (the last 4 MB once it passes 8 MB). */
  output(): string;
  /** The records logged so far whose `msg` is `msg`. */
  logged(msg: string): LogRecord[];
  /**
   * SIGKILL to the operator, its process group and every process under it (its helm children lead groups of their
   * own), as a container kill takes them all; resolves once every member is gone.
   */
  killGroup(): Promise<void>;
  /** SIGTERM to the operator (it lets its helm children finish), SIGKILL to all after `timeoutMs`; its exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
  /** The exit code (null after a signal), once the log is read to its end. */
  readonly exited: Promise<number | null>;
}

const MAX_KEPT = 8_000_000;

export function launchOperator(o: LaunchOptions): OperatorProcess {
  const main = join(o.root, 'dist/cmd/main.js');
  if (!o.entrypoint && !existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const watches = o.watchesFile === undefined ? [] : [`--watches-file=${o.watchesFile}`];
  const [command, argv] = o.entrypoint
    ? [o.entrypoint.command, [...o.entrypoint.args, ...(o.args ?? [])]]
    : [process.execPath, [main, 'run', ...watches, ...(o.args ?? [])]];
  const user =
    o.entrypoint?.uid === undefined ? {} : { uid: o.entrypoint.uid, gid: o.entrypoint.gid ?? o.entrypoint.uid };
  const out = openSync(o.logFile, o.appendLog ? 'a' : 'w');
  const from = fstatSync(out).size;
  const child = spawn(command, argv, {
    cwd: o.entrypoint?.cwd ?? o.root,
    detached: true, // its own process group: the operator and the helm processes it starts
    env: {
      ...(o.env ?? process.env),
      ...(o.kubeconfig === undefined ? {} : { KUBECONFIG: o.kubeconfig }),
      ...(o.helm === undefined ? {} : { HELM_BINARY: o.helm }),
    },
    stdio: ['ignore', out, out],
    ...user,
  });
  closeSync(out);
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the operator');
  let kept = '';
  const follow = followFile(o.logFile, from, (line) => {
    kept += `${line}\n`;
    if (kept.length > MAX_KEPT) kept = kept.slice(-MAX_KEPT / 2);
    o.onLine?.(line, parseLogLine(line));
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      follow.stop();
      resolve(code);
    }),
  );
  const groupGone = async (timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (groupMembers(pid).length > 0) {
      if (performance.now() > deadline) throw new Error(`process group ${pid} still has members after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /** SIGKILL to the operator's group and to every process under it (helm leads a group of its own). */
  const killAll = () => {
    const kill = (target: number) => {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    try {
      process.kill(pid, 'SIGSTOP'); // it starts no more helm while its tree is read
    } catch {
      // already gone
    }
    for (const m of groupMembers(pid)) kill(m.pgid === pid ? m.pid : -m.pgid);
    kill(-pid);
  };
  return {
    pid,
    running: () => child.exitCode === null && child.signalCode === null,
    output() {
      follow.poll();
      return kept;
    },
    logged(msg) {
      follow.poll();
      const records: LogRecord[] = [];
      for (const line of kept.split('\n')) {
        if (!line.includes(`"msg":${JSON.stringify(msg)}`)) continue;
        const r = parseLogLine(line);
        if (r?.msg === msg) records.push(r);
      }
      return records;
    },
    async killGroup() {
      killAll();
      await exited;
      await groupGone(10_000);
    },
    async stop(timeoutMs = 60_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const late = setTimeout(killAll, timeoutMs);
      const code = await exited;
      clearTimeout(late);
      await groupGone(timeoutMs);
      return code;
    },
    exited,
  };
}

/**
 * The live processes of process group `pgid` and every process under them (from /proc/PID/stat: state, ppid, pgrp),
 * with their command names: the operator's own group and its helm children, each of which leads a group of its own
 * (src/helm/process.ts). A child whose parent already died is no longer found under it.
 */
export function groupMembers(pgid: number): { pid: number; comm: string; pgid: number }[] {
  const all: { pid: number; comm: string; ppid: number; pgid: number }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (f[0] !== 'Z') all.push({ pid: Number(d), comm, ppid: Number(f[1]), pgid: Number(f[2]) });
    } catch {
      // gone meanwhile
    }
  }
  const found = new Set(all.filter((p) => p.pgid === pgid).map((p) => p.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (found.has(p.ppid) && !found.has(p.pid)) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => found.has(p.pid)).map(({ pid, comm, pgid: g }) => ({ pid, comm, pgid: g }));
}

/**
 * Calls `onLine` for each complete line written to `path` after byte `from`, every 50 ms and on poll(); stop() reads
 * the rest.
 */
function followFile(path: string, from: number, onLine: (line: string) => void): { poll(): void; stop(): void } {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(1 << 20);
  const decoder = new StringDecoder('utf8'); // a character split between two reads stays whole
  let position = from;
  let pending = '';
  let open = true;
  const poll = () => {
    if (!open) return;
    for (let n = readSync(fd, buf, 0, buf.length, position); n > 0; n = readSync(fd, buf, 0, buf.length, position)) {
      position += n;
      const lines = (pending + decoder.write(buf.subarray(0, n))).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    }
  };
  const timer = setInterval(poll, 50);
  timer.unref();
  return {
    poll,
    stop() {
      poll();
      if (pending) onLine(pending);
      pending = '';
      clearInterval(timer);
      open = false;
      closeSync(fd);
    },
  };
}

/** The operator image's Node flags: the Dockerfile's `ENV NODE_OPTIONS=` ('' when it sets none). */
export function imageNodeOptions(root: string): string {
  return imageEnv(root, 'NODE_OPTIONS');
}

/** A variable the operator image sets: the Dockerfile's `ENV NAME=value` ('' when it sets none). */
export function imageEnv(root: string, name: string): string {
  return new RegExp(`^ENV ${name}=(.+)$`, 'm').exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1] ?? '';
}
