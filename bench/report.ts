// The bench's report: the operator's figures as a table of rows, and the whole markdown (the machine, the settings,
// the rows, the side-by-side table with the floors). Pure formatting; called by operator-bench.ts at the end.
import { availableParallelism, cpus, totalmem } from 'node:os';
import { imageEnv, imageNodeOptions } from '../test/support/operator-process.ts';
import type { Calibration } from './calibrate.ts';
import { opCpu } from './fleet.ts';
import { calibrationText, type Figure } from './guard.ts';
import {
  CRS,
  DRIFT,
  DRIFT_GAP_MS,
  dist,
  FLOOR_VALIDATION,
  IDLE_PERIODS,
  MAX_CONCURRENT,
  mib,
  ms,
  NS,
  PERIOD,
  pct,
  REPLICAS,
  ROOT,
  SEQUENTIAL,
  sec,
  T0,
  tally,
} from './kit.ts';
import type { Operator } from './operator-process.ts';
import type { bulkCreates } from './phases/bulk.ts';
import type { bulkDelete } from './phases/delete.ts';
import type { measureDrift } from './phases/drift.ts';
import type { idleWindow } from './phases/idle.ts';
import type { bulkUpgrade } from './phases/upgrade.ts';

export interface Figures {
  readonly seq: { readonly creates: number[]; readonly deletes: number[] };
  readonly created: Awaited<ReturnType<typeof bulkCreates>>;
  readonly idled: Awaited<ReturnType<typeof idleWindow>>;
  readonly drift: Awaited<ReturnType<typeof measureDrift>> | undefined;
  readonly remove: Awaited<ReturnType<typeof bulkDelete>>;
  readonly helmTotal: string[];
  readonly errors: Operator['stats']['errors'];
}

/**
 * The delete phase's CPU by process (the operators, their helm children, the plane's processes) and their sum over
 * the machine's cores: the least wall time those processes could have taken at full use of every core.
 */
function deleteCpu(cpu: Readonly<Record<string, { own: number; children: number }>>): string {
  const { own: operator, children: helm } = opCpu(cpu);
  const plane = Object.entries(cpu).filter(([k]) => !/^op\d+$/.test(k));
  const total = plane.reduce((sum, [, v]) => sum + v.own, operator + helm);
  const cores = availableParallelism();
  const each = plane.map(([k, v]) => `${k} ${sec(v.own)}`).join(', ');
  return `operator ${sec(operator)}, helm ${sec(helm)}, ${each}; sum ÷ ${cores} cores: ${sec(total / cores)}`;
}

/** The first sequential create against the median of the others, and their ratio (the cold-start penalty). */
function firstVsRest(creates: readonly number[]): string {
  const [first, ...rest] = creates;
  if (first === undefined || rest.length === 0) return '-';
  const median = pct([...rest], 0.5);
  return `${ms(first)} / ${ms(median)} (${(first / median).toFixed(2)}×)`;
}

/** The operator's figures, one row each. */
export function operatorRows(f: Figures): [string, string][] {
  const { seq, drift, helmTotal, errors } = f;
  const { bulk, settleMs, rssSettled, apiRssSettled } = f.created;
  const cpuBulk = f.created.cpu;
  const { idle, rssEnd, hwm, apiRssEnd, cached } = f.idled;
  const rows: [string, string][] = [];
  const recTotal = idle.rec.reduce((a, [, n]) => a + n, 0);
  const perCr = idle.rec.filter(([k]) => k.startsWith(`${NS}/bulk-`)).map(([, n]) => n); // without deleted seq-*
  const recOther = recTotal - perCr.reduce((a, b) => a + b, 0);
  rows.push(
    [`1 CR create→Deployed, ${SEQUENTIAL}× sequential: p50 / p95 / max`, seq.creates.length ? dist(seq.creates) : '-'],
    [
      `1 CR create→Deployed: the first after the start / median of the other ${SEQUENTIAL - 1}`,
      firstVsRest(seq.creates),
    ],
    [`1 CR delete→gone, ${SEQUENTIAL}× sequential: p50 / p95 / max`, seq.deletes.length ? dist(seq.deletes) : '-'],
    [`${CRS} CRs create→Deployed: p50 / p95 / max`, bulk ? dist(bulk.latencies) : '-'],
    [`${CRS} CRs: time to send all creates (client)`, bulk ? ms(bulk.createMs) : '-'],
    [`${CRS} CRs: time until all Deployed`, bulk ? `${(bulk.allMs / 1000).toFixed(1)} s` : '-'],
    [`${CRS} CRs: CPU, first create to settled`, `operator ${sec(cpuBulk.own)}, helm ${sec(cpuBulk.helm)}`],
    [
      `${CRS} CRs: CPU per CR, operator's own / its helm children's`,
      `${ms((cpuBulk.own / CRS) * 1000)} / ${ms((cpuBulk.helm / CRS) * 1000)}`,
    ],
    [
      `${CRS} CRs: settled (no helm process for 3 s; no reconcile either within one period) after`,
      `${(settleMs / 1000).toFixed(1)} s more`,
    ],
    ['idle window (CRs settled, nothing changes)', `${idle.s.toFixed(1)} s (${IDLE_PERIODS} × ${PERIOD})`],
    ['helm processes during idle', `${idle.helm.length}${idle.helm.length ? ` (${tally(idle.helm)})` : ''}`],
    [
      'reconciles during idle (per bulk CR: min / max)',
      `${recTotal} (${perCr.length ? `${Math.min(...perCr)} / ${Math.max(...perCr)}` : '-'}; ${recOther} of deleted CRs)`,
    ],
    ['operator CPU during idle', `${sec(idle.cpu)} (${((idle.cpu / idle.s) * 100).toFixed(2)} % of one core)`],
    [
      `operator RSS${REPLICAS > 1 ? ` (${REPLICAS} replicas)` : ''} after settling / end of idle / peak`,
      `${mib(rssSettled)} / ${mib(rssEnd)} / ${mib(hwm)}`,
    ],
    ['kube-apiserver RSS after settling / end of idle', `${apiRssSettled} MiB / ${apiRssEnd} MiB`],
    [
      'objects in the dependent caches (label-selected informers)',
      `${cached} (the ${CRS} releases rendered ${CRS * 3}: Deployment, Service, ConfigMap each)`,
    ],
    [
      `drift: deleted Deployment back, ${DRIFT}× (${DRIFT_GAP_MS / 1000} s apart): p50 / p95 / max`,
      drift ? dist(drift.deleted) : '-',
    ],
    [
      `drift: scaled Deployment reverted, ${DRIFT}× (${DRIFT_GAP_MS / 1000} s apart): p50 / p95 / max`,
      drift ? dist(drift.scaled) : '-',
    ],
    [
      'drift inside the operator (watch event → applied): deleted / scaled, p50 / p95',
      drift
        ? `${ms(pct(drift.deletedInOperator, 0.5))} / ${ms(pct(drift.deletedInOperator, 0.95))} (${drift.deletedInOperator.length} samples); ${ms(pct(drift.scaledInOperator, 0.5))} / ${ms(pct(drift.scaledInOperator, 0.95))} (${drift.scaledInOperator.length})`
        : '-',
    ],
    ['helm processes during the drift phase', drift ? String(drift.helm) : '-'],
    [`delete all ${CRS}: CPU by process (sum ÷ cores: the least wall time at full use)`, deleteCpu(f.remove.cpu)],
    [
      `delete all ${CRS}: API requests (watches not counted) / watch events sent`,
      `${f.remove.api.requests} / ${f.remove.api.watchEvents}`,
    ],
    ['helm processes, whole run, by subcommand', `${helmTotal.length} (${tally(helmTotal)})`],
    ['operator error log lines, whole run', `${errors.length}${errors[0] ? ` (first: ${errors[0]})` : ''}`],
  );

  return rows;
}

/** The whole report. */
export function report(o: {
  rows: readonly [string, string][];
  table: string;
  workers: number;
  helmVersion: string;
  helmChoice: string;
  kubeVersion: string | undefined;
  loadAtStart: number;
  calibration: Calibration;
}): string {
  const { rows, table, workers, helmVersion, helmChoice, kubeVersion, loadAtStart, calibration } = o;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const out = [
    '',
    '## helm-operator-ts benchmark',
    '',
    `node ${process.version} · helm ${helmVersion} (${helmChoice}) · kubernetes ${kubeVersion} (local control plane)`,
    `${availableParallelism()} cores (${cpu}) · ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM · load average at start ${loadAtStart.toFixed(2)}`,
    `machine calibration (process-start cost, median CPU of one process): ${calibrationText(calibration)}`,
    `operator: --max-concurrent-reconciles=${workers} (${MAX_CONCURRENT ? 'BENCH_MAX_CONCURRENT' : 'default: number of CPUs'}) · --reconcile-period=${PERIOD} · NODE_OPTIONS=${imageNodeOptions(ROOT) || '(none)'} MALLOC_ARENA_MAX=${imageEnv(ROOT, 'MALLOC_ARENA_MAX') || '(unset)'} (the image's)`,
    '',
    '| measurement | value |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '### side by side: the operator and the physical floors (same plane, chart, namespace, releases, concurrency)',
    '',
    `helm floor: \`helm install|upgrade${FLOOR_VALIDATION ? '' : ' --disable-openapi-validation'}\` (BENCH_FLOOR_OPENAPI_VALIDATION=${FLOOR_VALIDATION}) · kubectl floor: \`kubectl apply --server-side\` of \`helm template\` output, rendered before the clock starts`,
    '',
    table,
    '',
    `bench wall time: ${((performance.now() - T0) / 1000).toFixed(0)} s (teardown not included)`,
    '',
  ];
  return out.join('\n');
}

/** The figures bench/guard.ts compares with the accepted ones (lower is better), each with its noise slack. */
export function guardedFigures(f: {
  seq: Figures['seq'];
  created: Figures['created'];
  idled: Figures['idled'];
  drift: Figures['drift'];
  upgrade: Awaited<ReturnType<typeof bulkUpgrade>>;
  remove: Figures['remove'];
  crs: number;
}): Record<string, Figure> {
  const { own, children } = opCpu(f.upgrade.cpu);
  const del = opCpu(f.remove.cpu);
  const fig = (value: number | undefined, slack: number): Figure => ({ value: value ?? Number.NaN, slack });
  return {
    '1 CR create → Deployed, p50 (ms)': fig(pct([...f.seq.creates], 0.5), 50),
    [`${f.crs} at once → all Deployed (ms)`]: fig(f.created.bulk?.allMs, 500),
    [`${f.crs} at once: operator CPU (s)`]: fig(f.created.cpu.own, 0.5),
    [`${f.crs} at once: helm CPU (s)`]: fig(f.created.cpu.helm, 0.5),
    'idle CPU (% of a core)': fig((f.idled.idle.cpu / f.idled.idle.s) * 100, 1),
    'RSS after settling (MiB, all replicas)': fig(
      f.created.rssSettled.reduce((a, b) => a + b, 0),
      4,
    ),
    'deleted Deployment back, p50 (ms)': fig(f.drift ? pct([...f.drift.deleted], 0.5) : undefined, 50),
    [`${f.crs} upgrades → all Deployed (ms)`]: fig(f.upgrade.allMs, 500),
    [`${f.crs} upgrades: CPU of operator + helm (s)`]: fig(own + children, 0.5),
    [`delete all ${f.crs} (ms)`]: fig(f.remove.allMs, 500),
    [`delete all ${f.crs}: CPU of operator + helm (s)`]: fig(del.own + del.children, 0.5),
  };
}
