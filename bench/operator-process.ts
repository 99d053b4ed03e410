// Starts the real operator (node dist/cmd/main.js run) for bench/operator-bench.ts with the real helm, its output
// going to a file (as a container runtime's log does: a slow reader never holds the operator's writes back), and
// follows that JSON log: reconciles, helm processes, workers, metrics address, drift stamps, errors. Called once
// per bench run; never kills anything but the child it started.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execPath } from 'node:process';

function parseJson(line: string): Record<string, string | number | undefined> {
  try {
    return JSON.parse(line) as Record<string, string | number | undefined>;
  } catch {
    return {};
  }
}

export interface Operator {
  readonly pid: number;
  readonly stats: {
    reconciles: Map<string, number>;
    errors: string[];
    workers?: number | undefined;
    metrics?: string | undefined;
    /** Operator log times (ms since epoch) of dependent delete/update events and drift corrections, by object. */
    drift: { event: Map<string, number[]>; corrected: Map<string, number[]> };
    tail: string[];
  };
  /** The helm processes the operator ran so far (the action of each, from its 'Helm finished' debug lines). */
  helmCalls(): string[];
  stop(): Promise<void>;
}

export interface StartOperatorOptions {
  /** The repository root: the operator's working directory (charts/ resolves from there). */
  readonly root: string;
  /** dist/cmd/main.js. */
  readonly main: string;
  readonly helm: string;
  readonly work: string;
  readonly kubeconfig: string;
  /** The one watches.yaml entry. */
  readonly watch: { readonly group: string; readonly version: string; readonly kind: string; readonly chart: string };
  readonly reconcilePeriod: string;
  /** '' = the operator's default. */
  readonly maxConcurrent: string;
  /** The environment the operator starts from (KUBECONFIG and the helm variables are set on top). */
  readonly env: NodeJS.ProcessEnv;
  /** Also append the operator's log lines here. */
  readonly logFile?: string | undefined;
  readonly onExit: (how: string) => void;
}

export function startOperator(o: StartOperatorOptions): Operator {
  const watches = join(o.work, 'watches.yaml');
  const logPath = join(o.work, 'operator.log');
  const w = o.watch;
  writeFileSync(watches, `- {group: ${w.group}, version: ${w.version}, kind: ${w.kind}, chart: ${w.chart}}\n`);
  const out = openSync(logPath, 'w');
  const args = [
    o.main,
    'run',
    `--watches-file=${watches}`,
    `--reconcile-period=${o.reconcilePeriod}`,
    '--zap-log-level=debug',
    '--metrics-bind-address=127.0.0.1:0',
    '--health-probe-bind-address=127.0.0.1:0',
  ];
  if (o.maxConcurrent) args.push(`--max-concurrent-reconciles=${o.maxConcurrent}`);
  const child = spawn(execPath, args, {
    cwd: o.root,
    env: {
      ...o.env,
      // As in the image: its Node flags (the Dockerfile's ENV NODE_OPTIONS), plus BENCH_NODE_OPTIONS (e.g. --cpu-prof).
      NODE_OPTIONS: [imageNodeOptions(o.root), o.env.BENCH_NODE_OPTIONS ?? ''].join(' ').trim(),
      KUBECONFIG: o.kubeconfig,
      HELM_BINARY: o.helm,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  if (child.pid === undefined) throw new Error('could not start the operator');
  const helmCalls: string[] = [];
  const stats: Operator['stats'] = {
    reconciles: new Map(),
    errors: [],
    tail: [],
    drift: { event: new Map(), corrected: new Map() },
  };
  const stamp = (m: Map<string, number[]>, key: string, time: unknown) => {
    const t = Date.parse(String(time));
    if (Number.isFinite(t)) m.set(key, [...(m.get(key) ?? []), t]);
  };
  const onLine = (line: string) => {
    if (o.logFile) appendFileSync(o.logFile, `${line}\n`);
    stats.tail.push(line);
    if (stats.tail.length > 20) stats.tail.shift();
    const rec = parseJson(line);
    const key = String(rec.key);
    if (rec.msg === 'Reconciled') stats.reconciles.set(key, (stats.reconciles.get(key) ?? 0) + 1);
    else if (rec.msg === 'Helm finished') helmCalls.push(String(rec.action));
    else if (rec.msg === 'Starting workers') stats.workers = Number(rec.workers);
    else if (rec.msg === 'Serving metrics') stats.metrics = String(rec.address);
    else if (rec.msg === 'Drift corrected') stamp(stats.drift.corrected, String(rec.object), rec.time);
    else if (rec.msg === 'Dependent changed: reconcile its owner') {
      const t = rec.trigger as unknown as { kind?: string; namespace?: string; name?: string; event?: string };
      if (t.event !== 'add') stamp(stats.drift.event, `${t.namespace}/${t.name}`, rec.time);
    } else if (rec.level === 'error') stats.errors.push(`${rec.msg}${rec.err ? `: ${rec.err}` : ''}`);
  };
  const follow = followFile(logPath, onLine);
  const exited = new Promise<void>((res) =>
    child.on('exit', (code, sig) => {
      follow.stop();
      o.onExit(`code ${code}, signal ${sig}`);
      res();
    }),
  );
  return {
    pid: child.pid,
    /** Read after the log lines written so far (the file is polled every 50 ms otherwise). */
    get stats() {
      follow.poll();
      return stats;
    },
    helmCalls: () => {
      follow.poll();
      return [...helmCalls];
    },
    async stop() {
      follow.poll();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The operator image's Node flags: the Dockerfile's `ENV NODE_OPTIONS=` ('' when it sets none). */
export function imageNodeOptions(root: string): string {
  return /^ENV NODE_OPTIONS=(.+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1] ?? '';
}

/** Calls `onLine` for each complete line appended to `path`, every 50 ms and on poll(); stop() reads the rest. */
function followFile(path: string, onLine: (line: string) => void): { poll(): void; stop(): void } {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(1 << 20);
  let pending = '';
  let open = true;
  const poll = () => {
    if (!open) return;
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      const lines = (pending + buf.toString('utf8', 0, n)).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    }
  };
  const timer = setInterval(poll, 50);
  return {
    poll,
    stop() {
      poll();
      if (pending) onLine(pending);
      clearInterval(timer);
      open = false;
      closeSync(fd);
    },
  };
}
