// `make bench`: a local control plane, the real operator through eight phases, then (9) the physical floors (helm and
// kubectl directly) on the same plane; two markdown tables to stdout, progress to stderr. Not a test. The phases, what
// each window measures and the BENCH_* settings: docs/contributing.md, "The benchmark: `make bench`".
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import type { LocalPlane } from '../test/support/plane.ts';
import { until } from '../test/support/until.ts';
import { benchContext, startBenchFleet, startBenchPlane } from './bench-plane.ts';
import { type Calibration, calibrate } from './calibrate.ts';
import { compare } from './compare.ts';
import { watchCRs } from './cr-watch.ts';
import { type Fleet, opCpu } from './fleet.ts';
import { accept, calibrationText, judge, nearest, readAccepted } from './guard.ts';
import {
  benchWait,
  CRS,
  DRIFT,
  env,
  FLOOR_VALIDATION,
  FLOORS,
  log,
  MAIN,
  MAX_CONCURRENT,
  NS,
  PERIOD,
  REPLICAS,
  ROOT,
  SEQUENTIAL,
  signal,
  UPGRADE,
  UPGRADE_VALUES,
} from './kit.ts';
import { bulkCreates } from './phases/bulk.ts';
import { bulkDelete } from './phases/delete.ts';
import { measureDrift } from './phases/drift.ts';
import { measureFloors, NO_FLOORS } from './phases/floors.ts';
import { idleWindow } from './phases/idle.ts';
import { sequentialCreates } from './phases/sequential.ts';
import { bulkUpgrade } from './phases/upgrade.ts';
import { quiet } from './proc.ts';
import { guardedFigures, operatorRows, report } from './report.ts';
import { sideBySide } from './side-by-side.ts';

async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm run bench does)`);
  const work = mkdtempSync(join(tmpdir(), 'operator-bench-'));
  let plane: LocalPlane | undefined;
  let op: Fleet | undefined;
  const loadAtStart = loadavg()[0] ?? 0;
  try {
    const p = await startBenchPlane();
    plane = p.plane;
    const { kc, custom, apiserver, helm, helmChoice, helmVersion, kubeVersion, path } = p;
    const { bin, kubeconfig } = p.plane;
    const calibration = await calibrateMachine(helm, kubeconfig, work);
    await quiet(apiserver);

    if (env.BENCH_COMPARE) {
      const table = await compare({
        kc,
        custom,
        kubeconfig,
        helm,
        kubectl: join(bin, 'kubectl'),
        work,
        command: env.BENCH_COMPARE,
      });
      process.stdout.write(`\nmachine calibration: ${calibrationText(calibration)}\n\n${table}`);
      return;
    }
    const shards = REPLICAS > 1 ? `, ${REPLICAS} sharded replicas` : '';
    log(`starting the operator (helm ${helmVersion}, --reconcile-period=${PERIOD}${shards})`);
    const o = startBenchFleet(p, { replicas: REPLICAS, work, maxConcurrent: MAX_CONCURRENT });
    op = o;
    const workers = await until('the operator to start its workers', () => o.stats.workers, benchWait(50));

    const bulkCrs = await watchCRs({ kc, path, phase: 'bulk', signal });
    const names = Array.from({ length: CRS }, (_, i) => `bulk-${String(i + 1).padStart(3, '0')}`);
    const b = benchContext(p, o, bulkCrs, names);
    const seq = await sequentialCreates(kc, custom, path); // 1
    const created = await bulkCreates(b, workers); // 2
    const idled = await idleWindow(b); // 3, 4
    // Drift reads one operator's log: not measured over shards.
    const drift =
      DRIFT > 0 && CRS > 0 && REPLICAS === 1
        ? await measureDrift(kc, kc.makeApiClient(AppsV1Api), o, names)
        : undefined; // 5
    const upgrade = UPGRADE ? await bulkUpgrade(b) : { latencies: [], allMs: Number.NaN, cpu: {} }; // 7
    const remove = await bulkDelete(b); // 8
    const rows = operatorRows({ seq, created, idled, drift, remove, helmTotal: o.helmCalls(), errors: o.stats.errors }); // 6

    log(`stopping the operator${FLOORS ? '; phase 9: the floors (helm and kubectl directly)' : ''}`);
    await o.stop();
    const floors = !FLOORS
      ? NO_FLOORS
      : await measureFloors({
          helm,
          kubectl: join(bin, 'kubectl'),
          kubeconfig,
          chart: join(ROOT, 'charts/nginx'),
          namespace: NS,
          sequential: Array.from({ length: SEQUENTIAL }, (_, i) => `seq-${i + 1}`),
          bulk: names,
          concurrency: workers,
          upgrade: UPGRADE_VALUES,
          openApiValidation: FLOOR_VALIDATION,
          apiserverPid: apiserver,
          workDir: work,
          path: env.PATH ?? '',
          signal,
          log,
        });
    const cpuOf = (c: Record<string, { own: number; children: number }>) => {
      const f = opCpu(c);
      return f.own + f.children;
    };
    const table = sideBySide({
      crs: CRS,
      concurrency: workers,
      floors,
      operator: {
        sequential: seq.creates,
        create: {
          wallMs: created.bulk?.allMs ?? Number.NaN,
          latencies: created.bulk?.latencies ?? [],
          cpu: cpuOf(created.window),
          cpuApiserver: created.window.apiserver?.own ?? 0,
        },
        upgrade: {
          wallMs: upgrade.allMs,
          latencies: upgrade.latencies,
          cpu: cpuOf(upgrade.cpu),
          cpuApiserver: upgrade.cpu.apiserver?.own ?? 0,
        },
        remove: { wallMs: remove.allMs, cpu: cpuOf(remove.cpu), cpuApiserver: remove.cpu.apiserver?.own ?? 0 },
        rssMiB: created.rssSettled,
        idleCpuPercent: (idled.idle.cpu / idled.idle.s) * 100,
      },
    });
    process.stdout.write(
      report({ rows, table, workers, helmVersion, helmChoice, kubeVersion, loadAtStart, calibration }),
    );
    guardFigures(calibration, guardedFigures({ seq, created, idled, drift, upgrade, remove, crs: CRS }));
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (op) process.stderr.write(`last operator log lines:\n${op.stats.tail.join('\n')}\n`);
    log(`failed: ${err instanceof Error ? err.message : String(err)}`); // before a failing stop() could hide it
    throw err;
  } finally {
    if (op) await op.stop();
    await plane?.stop().catch((e: unknown) => log(`testenv down failed: ${String(e)}`));
    rmSync(work, { recursive: true, force: true });
    log('torn down');
  }
}

/** The machine's process-start cost (bench/calibrate.ts), on the plane the bench just started. */
async function calibrateMachine(helm: string, kubeconfig: string, work: string): Promise<Calibration> {
  log('calibrating: the CPU of node -e 0, helm version and a direct helm install of the bench chart');
  const c = await calibrate({
    node: process.execPath,
    helm,
    kubeconfig,
    chart: join(ROOT, 'charts/nginx'),
    namespace: NS,
    workDir: work,
    path: env.PATH ?? '',
    openApiValidation: FLOOR_VALIDATION,
    signal,
    runs: Number(env.BENCH_CALIBRATION_RUNS || 5),
  });
  log(`machine calibration: ${calibrationText(c)}`);
  return c;
}

/** Prints the run's figures against the accepted ones of this calibration; BENCH_ACCEPT=1 records them instead. */
function guardFigures(calibration: Calibration, figures: ReturnType<typeof guardedFigures>): void {
  const file = join(ROOT, 'bench/baselines.json');
  const verdict = judge(nearest(readAccepted(file), calibration), figures);
  process.stdout.write(`### against the accepted figures (bench/baselines.json)\n\n${verdict.table}\n\n`);
  if (verdict.regressions.length > 0)
    process.stdout.write(
      `**bench guard: ${verdict.regressions.length} figure(s) more than 25 % worse than accepted:** ${verdict.regressions.join('; ')}\n\n`,
    );
  if (env.BENCH_ACCEPT === '1') {
    const values = Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, Number(f.value.toPrecision(4))]));
    accept(file, { calibration, accepted: new Date().toISOString().slice(0, 10), figures: values });
    log(`BENCH_ACCEPT=1: these figures are now the accepted ones for this calibration (${file})`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
