// `make bench-scale`: scale as a curve, not a point. For each point of BENCH_SCALE_CRS × BENCH_SCALE_REPLICAS, on a
// fresh local plane: the operators (sharded when more than one, 2 workers each), every CR created at once until all are
// Deployed and settled, each replica's watch events, cached objects, RSS, heap and CPU, the plane's CPU, then every CR
// deleted at once until all are gone. Tables to stdout, progress to stderr; not a test. Starts and stops only its own
// planes and operators. What each column means: docs/contributing.md, "Scale as a curve: `make bench-scale`".
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../test/support/until.ts';
import { type BenchPlane, benchContext, startBenchFleet, startBenchPlane } from './bench-plane.ts';
import { type CrWatch, watchCRs } from './cr-watch.ts';
import type { Fleet } from './fleet.ts';
import { benchWait, deadlinesFor, env, log, MAIN, signal } from './kit.ts';
import { bulkCreates } from './phases/bulk.ts';
import { bulkDelete } from './phases/delete.ts';
import { growth, type ReplicaMetrics, scrapeReplica } from './replica-metrics.ts';
import { type Cpu, type PointFigures, pointTable, summaryTable } from './scale-report.ts';

/** A comma-separated list of positive integers, e.g. BENCH_SCALE_CRS=1000,3000. */
function grid(name: string, def: string): number[] {
  const text = env[name] || def;
  const xs = text.split(',').map((x) => Number(x.trim()));
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < 1))
    throw new Error(`${name}=${text} must be a comma-separated list of positive integers`);
  return xs;
}
const SCALE_CRS = grid('BENCH_SCALE_CRS', '1000,3000');
const SCALE_REPLICAS = grid('BENCH_SCALE_REPLICAS', '1,3');
/** Workers per replica (--max-concurrent-reconciles). */
const WORKERS = env.BENCH_MAX_CONCURRENT || '2';

async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (make bench-scale does)`);
  const points: PointFigures[] = [];
  const t0 = performance.now();
  for (const crs of SCALE_CRS)
    for (const replicas of SCALE_REPLICAS) {
      const p = await measurePoint(crs, replicas);
      points.push(p);
      process.stdout.write(`${pointTable(p)}\n`); // each point as it ends: a late failure keeps the earlier ones
    }
  process.stdout.write(summaryTable(points));
  log(`${points.length} points in ${((performance.now() - t0) / 60_000).toFixed(1)} min`);
}

/** One point of the grid on a plane of its own, so that each starts from the same empty etcd. */
async function measurePoint(crs: number, replicas: number): Promise<PointFigures> {
  deadlinesFor(crs);
  const load = loadavg()[0] ?? 0;
  log(`point: ${crs} CRs, ${replicas} replica(s), ${WORKERS} workers each`);
  const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  let p: BenchPlane | undefined;
  let o: Fleet | undefined;
  let crWatch: CrWatch | undefined;
  try {
    p = await startBenchPlane();
    const fleet = startBenchFleet(p, { replicas, work, maxConcurrent: WORKERS });
    o = fleet;
    await until('the operators to start their workers', () => fleet.stats.workers, benchWait(50));
    const addresses = await until(
      "each replica's metrics address",
      () => {
        const a = fleet.replicas.map((r) => r.stats.metrics);
        return a.every((x) => x !== undefined) ? (a as string[]) : undefined;
      },
      benchWait(50),
    );
    const scrape = () => Promise.all(addresses.map((a) => scrapeReplica(a)));
    crWatch = await watchCRs({ kc: p.kc, path: p.path, phase: 'bulk', signal });
    const names = Array.from({ length: crs }, (_, i) => `bulk-${String(i + 1).padStart(4, '0')}`);
    const b = benchContext(p, fleet, crWatch, names);

    const before = await scrape();
    const created = await bulkCreates(b, fleet.stats.workers ?? 0);
    const settled = await scrape();
    const remove = await bulkDelete(b);
    const gone = await scrape();
    const replicaCpu = (c: Readonly<Record<string, Cpu>>, i: number): Cpu => c[`op${i}`] ?? { own: 0, children: 0 };
    const planeCpu = (k: string) => ({ create: created.window[k]?.own ?? 0, delete: remove.cpu[k]?.own ?? 0 });
    return {
      crs,
      replicas,
      workers: fleet.workersEach ?? Number(WORKERS),
      createAllMs: created.bulk?.allMs ?? Number.NaN,
      settleMs: created.settleMs,
      deleteAllMs: remove.allMs,
      plane: { apiserver: planeCpu('apiserver'), etcd: planeCpu('etcd') },
      replica: settled.map((s, i) =>
        replicaFigures(before[i], s, gone[i], {
          rssMiB: created.rssSettled[i] ?? Number.NaN,
          cpuCreate: replicaCpu(created.window, i),
          cpuDelete: replicaCpu(remove.cpu, i),
        }),
      ),
      load,
    };
  } catch (err) {
    if (o) process.stderr.write(`last operator log lines:\n${o.stats.tail.join('\n')}\n`);
    throw err;
  } finally {
    crWatch?.close();
    await o?.stop();
    await p?.plane.stop().catch((e: unknown) => log(`testenv down failed: ${String(e)}`));
    if (env.BENCH_KEEP_WORK === undefined) rmSync(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

/** One replica's row: its scrapes before the creates, once settled and once every CR is gone. */
function replicaFigures(
  before: ReplicaMetrics | undefined,
  settled: ReplicaMetrics,
  gone: ReplicaMetrics | undefined,
  o: { rssMiB: number; cpuCreate: Cpu; cpuDelete: Cpu },
) {
  const none = new Map<string, number>();
  return {
    eventsCreate: growth(before?.events ?? none, settled.events),
    eventsDelete: growth(settled.events, gone?.events ?? none),
    objects: settled.objects,
    heapUsedMiB: settled.heapUsedMiB,
    ...o,
  };
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (signal.aborted) process.stderr.write(`bench-scale: ${String(signal.reason)}\n`);
    process.stderr.write(`bench-scale failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
