// The real operator for bench/operator-bench.ts, through the one launcher (test/support/operator-process.ts), with
// the real helm and the image's Node flags, its JSON log followed for the figures: reconciles, helm processes,
// workers, metrics address, drift stamps, errors. Called once per bench run; never kills anything it did not start.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageEnv, imageNodeOptions, type LogRecord, launchOperator } from '../test/support/operator-process.ts';

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
  /** 'debug' (the bench's figures read helm processes and reconciles from the debug log) or the operator's
   * default, as a user's cluster runs it (BENCH_COMPARE; those figures stay empty). @default 'debug' */
  readonly logLevel?: 'debug' | 'default';
  /** More flags (sharding, leader election). @default none */
  readonly extraArgs?: readonly string[];
  /** Also append the operator's log lines here. */
  readonly logFile?: string | undefined;
  /** Called when the operator exits on its own (not when stop() asked it to). */
  readonly onExit: (how: string) => void;
}

export function startOperator(o: StartOperatorOptions): Operator {
  const watchesFile = join(o.work, 'watches.yaml');
  const w = o.watch;
  writeFileSync(watchesFile, `- {group: ${w.group}, version: ${w.version}, kind: ${w.kind}, chart: ${w.chart}}\n`);
  const args = [
    `--reconcile-period=${o.reconcilePeriod}`,
    ...(o.logLevel === 'default' ? [] : ['--zap-log-level=debug']),
    '--metrics-bind-address=127.0.0.1:0',
    '--health-probe-bind-address=127.0.0.1:0',
  ];
  if (o.maxConcurrent) args.push(`--max-concurrent-reconciles=${o.maxConcurrent}`);
  args.push(...(o.extraArgs ?? []));
  args.push(...(o.env.BENCH_OPERATOR_ARGS ?? '').split(/\s+/).filter(Boolean)); // e.g. --in-process-uninstall=false
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
  const onLine = (line: string, rec: LogRecord | undefined) => {
    if (o.logFile) appendFileSync(o.logFile, `${line}\n`);
    stats.tail.push(line);
    if (stats.tail.length > 20) stats.tail.shift();
    if (!rec) return;
    const key = String(rec.key);
    if (rec.msg === 'Reconciled') stats.reconciles.set(key, (stats.reconciles.get(key) ?? 0) + 1);
    else if (rec.msg === 'Helm finished') helmCalls.push(String(rec.action));
    else if (rec.msg === 'Starting workers') stats.workers = Number(rec.workers);
    else if (rec.msg === 'Serving metrics') stats.metrics = String(rec.address);
    else if (rec.msg === 'Drift corrected') stamp(stats.drift.corrected, String(rec.object), rec.time);
    else if (rec.msg === 'Dependent changed: reconcile its owner') {
      const t = rec.trigger as { kind?: string; namespace?: string; name?: string; event?: string };
      if (t.event !== 'add') stamp(stats.drift.event, `${t.namespace}/${t.name}`, rec.time);
    } else if (rec.level === 'error') stats.errors.push(`${rec.msg}${rec.err ? `: ${errText(rec.err)}` : ''}`);
  };
  const operator = launchOperator({
    root: o.root,
    kubeconfig: o.kubeconfig,
    watchesFile,
    helm: o.helm,
    args,
    env: {
      ...o.env,
      // As in the image: its Node flags (the Dockerfile's ENV NODE_OPTIONS), plus BENCH_NODE_OPTIONS (e.g. --cpu-prof).
      NODE_OPTIONS: [imageNodeOptions(o.root), o.env.BENCH_NODE_OPTIONS ?? ''].join(' ').trim(),
      MALLOC_ARENA_MAX: imageEnv(o.root, 'MALLOC_ARENA_MAX'),
      MALLOC_MMAP_THRESHOLD_: imageEnv(o.root, 'MALLOC_MMAP_THRESHOLD_'),
      MALLOC_TRIM_THRESHOLD_: imageEnv(o.root, 'MALLOC_TRIM_THRESHOLD_'),
    },
    logFile: join(o.work, 'operator.log'),
    onLine,
  });
  // An exit the bench asked for (stop()) is no failure: a later wait (bench/scale.ts' next point) must not see it.
  let stopping = false;
  void operator.exited.then((code) => {
    if (!stopping) o.onExit(`code ${code}`);
  });
  return {
    pid: operator.pid,
    /** Read after the log lines written so far (the file is followed every 50 ms otherwise). */
    get stats() {
      operator.output();
      return stats;
    },
    helmCalls: () => {
      operator.output();
      return [...helmCalls];
    },
    async stop() {
      stopping = true;
      await operator.stop(15_000);
    },
  };
}

/** An error field of a log line as text: pino's serialised error is an object with a message. */
function errText(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}
