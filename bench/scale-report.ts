// The tables of bench/scale.ts: one point of its grid (N CRs on R replicas) as markdown, per replica and by kind, and
// the summary of the curve: each replica of a fleet against the single replica at the same CR count. Pure: figures in,
// markdown out; called by bench/scale.ts (and its unit test); measures nothing.
import { type ByKind, total } from './replica-metrics.ts';

/** CPU seconds of a process in a window: its own, and its waited-for children's (helm). */
export interface Cpu {
  readonly own: number;
  readonly children: number;
}

export interface ReplicaFigures {
  /** Watch events received from the first create until settled, and over the deletes, by kind. */
  readonly eventsCreate: ByKind;
  readonly eventsDelete: ByKind;
  /** Objects in its informers once settled, by kind. */
  readonly objects: ByKind;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  readonly cpuCreate: Cpu;
  readonly cpuDelete: Cpu;
}

/** A plane process's CPU seconds in the two windows. */
export interface Cpu2 {
  readonly create: number;
  readonly delete: number;
}

export interface PointFigures {
  readonly crs: number;
  readonly replicas: number;
  /** Workers of each replica. */
  readonly workers: number;
  /** From the first create request until every CR is Deployed, ms; then until settled. */
  readonly createAllMs: number;
  readonly settleMs: number;
  /** From the first delete request until every CR is gone, ms. */
  readonly deleteAllMs: number;
  /** CPU seconds of kube-apiserver and etcd, create → settled and over the deletes. */
  readonly plane: { readonly apiserver: Cpu2; readonly etcd: Cpu2 };
  /** In shard order. */
  readonly replica: readonly ReplicaFigures[];
  /** The 1-minute load average when the point began. */
  readonly load: number;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cpu = (c: Cpu) => `${c.own.toFixed(1)} / ${c.children.toFixed(1)} s`;
const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
const rule = (n: number) => `|${'---|'.repeat(n)}`;

/** One point: a line of whole-run figures, a row per replica, and the counts by kind. */
export function pointTable(p: PointFigures): string {
  const head = `### ${p.crs} CRs, ${p.replicas} replica${p.replicas === 1 ? '' : 's'} (${p.workers} workers each)`;
  const runLine =
    `create-all ${s(p.createAllMs)} (settled ${s(p.settleMs)} later), delete-all ${s(p.deleteAllMs)}; ` +
    `kube-apiserver CPU ${p.plane.apiserver.create.toFixed(1)} s (create → settled) / ` +
    `${p.plane.apiserver.delete.toFixed(1)} s (delete), etcd ${p.plane.etcd.create.toFixed(1)} / ` +
    `${p.plane.etcd.delete.toFixed(1)} s; load ${p.load.toFixed(1)} at the start.`;
  const cols = [
    'replica',
    'watch events, create → settled',
    'watch events, delete',
    'objects cached, settled',
    'RSS, settled',
    'V8 heap used, settled',
    'CPU own / helm, create → settled',
    'CPU own / helm, delete',
  ];
  const rows = p.replica.map((r, i) =>
    row([
      i,
      total(r.eventsCreate),
      total(r.eventsDelete),
      total(r.objects),
      `${r.rssMiB.toFixed(0)} MiB`,
      `${r.heapUsedMiB.toFixed(1)} MiB`,
      cpu(r.cpuCreate),
      cpu(r.cpuDelete),
    ]),
  );
  const kinds = [...new Set(p.replica.flatMap((r) => [...r.eventsCreate.keys(), ...r.objects.keys()]))].sort();
  const byKind = kinds.map((k) =>
    row([
      k,
      ...p.replica.map(
        (r) => `${r.eventsCreate.get(k) ?? 0} / ${r.eventsDelete.get(k) ?? 0} / ${r.objects.get(k) ?? 0}`,
      ),
    ]),
  );
  return [
    head,
    '',
    runLine,
    '',
    row(cols),
    rule(cols.length),
    ...rows,
    '',
    'By kind, each replica: watch events create → settled / watch events delete / objects cached.',
    '',
    row(['kind', ...p.replica.map((_, i) => `replica ${i}`)]),
    rule(p.replica.length + 1),
    ...byKind,
    '',
  ].join('\n');
}

/** Each replica's figure ÷ the base's (its replicas' mean; the single replica's own): "0.34–0.36×", least to most. */
function perReplica(fleet: PointFigures, base: PointFigures, figure: (r: ReplicaFigures) => number): string {
  const b = base.replica.reduce((a, r) => a + figure(r), 0) / base.replica.length;
  const ratios = fleet.replica.map((r) => figure(r) / b);
  const [lo, hi] = [Math.min(...ratios), Math.max(...ratios)];
  return lo.toFixed(2) === hi.toFixed(2) ? `${hi.toFixed(2)}×` : `${lo.toFixed(2)}–${hi.toFixed(2)}×`;
}

/**
 * The curve: for each CR count, each fleet of more replicas against the point with the fewest (the single replica):
 * per replica (the least and the most of its replicas) watch events, cached objects and RSS, and the whole run's
 * create-all and delete-all and the plane's CPU. Empty when no CR count has two replica counts.
 */
export function summaryTable(points: readonly PointFigures[]): string {
  const cols = [
    'CRs',
    'replicas vs',
    'watch events per replica, create → settled',
    'watch events per replica, delete',
    'objects cached per replica',
    'RSS per replica',
    'create-all',
    'delete-all',
    'kube-apiserver CPU, create / delete',
    'etcd CPU, create / delete',
  ];
  const rows: string[] = [];
  for (const crs of [...new Set(points.map((p) => p.crs))]) {
    const at = points.filter((p) => p.crs === crs).sort((a, b) => a.replicas - b.replicas);
    const base = at[0];
    if (base === undefined) continue;
    for (const fleet of at.slice(1)) {
      const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
      const plane = (c: (p: PointFigures) => Cpu2) =>
        `${x(c(fleet).create, c(base).create)} / ${x(c(fleet).delete, c(base).delete)}`;
      rows.push(
        row([
          crs,
          `${fleet.replicas} vs ${base.replicas}`,
          perReplica(fleet, base, (r) => total(r.eventsCreate)),
          perReplica(fleet, base, (r) => total(r.eventsDelete)),
          perReplica(fleet, base, (r) => total(r.objects)),
          perReplica(fleet, base, (r) => r.rssMiB),
          x(fleet.createAllMs, base.createAllMs),
          x(fleet.deleteAllMs, base.deleteAllMs),
          plane((p) => p.plane.apiserver),
          plane((p) => p.plane.etcd),
        ]),
      );
    }
  }
  if (rows.length === 0) return '';
  return [
    '### The curve: each replica against the single replica, at the same CR count',
    '',
    "Per replica: the least and the most of the fleet's replicas, each ÷ the single replica's figure; the whole run's",
    "figures ÷ the single replica's run.",
    '',
    row(cols),
    rule(cols.length),
    ...rows,
    '',
  ].join('\n');
}
