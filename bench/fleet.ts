// BENCH_REPLICAS operators on one plane, seen by the bench's phases as one: with more than one, each runs with
// --shard-count=N --shard-index=i and the shard Leases in the bench namespace, so that each reconciles a third (say)
// of the CRs. Their PIDs are summed for CPU and listed for RSS; their log figures are merged, and each replica is
// still at hand (bench/scale.ts reads each one's /metrics). Called by operator-bench.ts and bench/scale.ts; starts
// only the processes it stops.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Operator, type StartOperatorOptions, startOperator } from './operator-process.ts';

export interface Fleet extends Operator {
  /** Every replica's PID, in shard order. */
  readonly pids: readonly number[];
  /** Every replica, in shard order (its own log figures: its metrics address, its workers). */
  readonly replicas: readonly Operator[];
  /** Workers of one replica (each runs that many). */
  readonly workersEach: number | undefined;
}

/** `replicas` operators (1: the plain operator, no sharding, no leases). */
export function startFleet(replicas: number, o: StartOperatorOptions & { readonly namespace: string }): Fleet {
  const ops =
    replicas <= 1
      ? [startOperator(o)]
      : Array.from({ length: replicas }, (_, i) => {
          const work = join(o.work, `replica-${i}`);
          mkdirSync(work, { recursive: true });
          const shard = [`--shard-count=${replicas}`, `--shard-index=${i}`, '--leader-elect'];
          const lease = ['--leader-election-id=bench-operator', `--leader-election-namespace=${o.namespace}`];
          const logFile = o.logFile ? `${o.logFile}.${i}` : undefined; // BENCH_LOG.0, .1, …
          const onExit = (how: string) => o.onExit(`replica ${i}: ${how}`);
          return startOperator({ ...o, work, extraArgs: [...shard, ...lease], logFile, onExit });
        });
  const first = ops[0] as Operator;
  return {
    pid: first.pid,
    pids: ops.map((op) => op.pid),
    replicas: ops,
    get workersEach() {
      return first.stats.workers;
    },
    get stats() {
      const all = ops.map((op) => op.stats);
      const reconciles = new Map<string, number>();
      for (const s of all) for (const [k, n] of s.reconciles) reconciles.set(k, (reconciles.get(k) ?? 0) + n);
      const workers = all.every((s) => s.workers !== undefined)
        ? all.reduce((a, s) => a + (s.workers ?? 0), 0)
        : undefined;
      return {
        reconciles,
        errors: all.flatMap((s) => s.errors),
        workers,
        metrics: first.stats.metrics,
        drift: first.stats.drift,
        tail: all.flatMap((s) => s.tail),
      };
    },
    helmCalls: () => ops.flatMap((op) => op.helmCalls()),
    async stop() {
      await Promise.all(ops.map((op) => op.stop()));
    },
  };
}

/** The fleet's PIDs as cpuWindow's keys op0, op1, …; opCpu() sums them. */
export const opPids = (f: Pick<Fleet, 'pids'>) => Object.fromEntries(f.pids.map((pid, i) => [`op${i}`, pid]));

/** CPU seconds (own and children) of the fleet in a window of cpuWindow({...opPids(f), …}). */
export function opCpu(c: Readonly<Record<string, { own: number; children: number }>>): {
  own: number;
  children: number;
} {
  let own = 0;
  let children = 0;
  for (const [k, v] of Object.entries(c))
    if (/^op\d+$/.test(k)) {
      own += v.own;
      children += v.children;
    }
  return { own, children };
}
