// The scale bench's figures (bench/replica-metrics.ts) and its curve (bench/scale-report.ts): a replica's /metrics
// read by kind, and each replica of a fleet against the single replica at the same CR count.
import { describe, expect, it } from 'vitest';
import { growth, parseReplicaMetrics, total } from '../../bench/replica-metrics.ts';
import { type PointFigures, pointTable, type ReplicaFigures, summaryTable } from '../../bench/scale-report.ts';

const metrics = [
  '# HELP helm_operator_informer_objects Objects held in the stores of the running informers of this process, by kind',
  '# TYPE helm_operator_informer_objects gauge',
  'helm_operator_informer_objects{kind="Nginx"} 20',
  'helm_operator_informer_objects{kind="Secret"} 40',
  'helm_operator_informer_watch_events_total{kind="Nginx",type="ADDED"} 20',
  'helm_operator_informer_watch_events_total{kind="Nginx",type="MODIFIED"} 45',
  'helm_operator_informer_watch_events_total{type="BOOKMARK",kind="Nginx"} 3',
  'helm_operator_informer_watch_events_total{kind="Secret",type="ADDED"} 40',
  'nodejs_heap_size_used_bytes 31457280',
  'nodejs_heap_size_total_bytes 41943040',
].join('\n');

const replica = (events: number, objects: number, rssMiB: number): ReplicaFigures => ({
  eventsCreate: new Map([['Nginx', events]]),
  eventsDelete: new Map([['Nginx', events / 2]]),
  objects: new Map([['Nginx', objects]]),
  rssMiB,
  heapUsedMiB: 20,
  cpuCreate: { own: 1, children: 2 },
  cpuDelete: { own: 0.5, children: 0 },
});
const point = (crs: number, replicas: ReplicaFigures[], createAllMs: number, deleteAllMs: number): PointFigures => ({
  crs,
  replicas: replicas.length,
  workers: 2,
  createAllMs,
  settleMs: 3000,
  deleteAllMs,
  plane: { apiserver: { create: 10, delete: 4 }, etcd: { create: 2, delete: 1 } },
  replica: replicas,
  load: 1,
});

describe('the scale bench', () => {
  it('reads watch events (bookmarks left out) and objects by kind, whatever the label order, and the heap used', () => {
    const m = parseReplicaMetrics(metrics);
    expect(m.events).toEqual(
      new Map([
        ['Nginx', 65],
        ['Secret', 40],
      ]),
    );
    expect(m.objects).toEqual(
      new Map([
        ['Nginx', 20],
        ['Secret', 40],
      ]),
    );
    expect(m.heapUsedMiB).toBe(30);
    expect(total(m.events)).toBe(105);
    expect(growth(new Map([['Nginx', 5]]), m.events)).toEqual(
      new Map([
        ['Nginx', 60],
        ['Secret', 40],
      ]),
    );
  });

  it('sets each replica of a fleet against the single replica at the same CR count, least to most', () => {
    const points = [
      point(100, [replica(1000, 300, 100)], 20_000, 10_000),
      point(100, [replica(300, 100, 50), replica(360, 110, 55), replica(330, 100, 50)], 15_000, 10_000),
      point(200, [replica(2000, 600, 120)], 40_000, 20_000),
    ];
    const summary = summaryTable(points);
    expect(summary).toContain('| 100 | 3 vs 1 | 0.30–0.36× | 0.30–0.36× | 0.33–0.37× | 0.50–0.55× | 0.75× | 1.00× |');
    expect(summary).not.toContain('| 200 |'); // no second replica count at 200 CRs
    expect(summaryTable([points[2] as PointFigures])).toBe('');
  });

  it('gives a point a row per replica and a row per kind', () => {
    const table = pointTable(point(100, [replica(300, 100, 50), replica(360, 110, 55)], 15_000, 10_000));
    expect(table).toContain('### 100 CRs, 2 replicas (2 workers each)');
    expect(table).toContain('| 1 | 360 | 180 | 110 | 55 MiB | 20.0 MiB | 1.0 / 2.0 s | 0.5 / 0.0 s |');
    expect(table).toContain('| Nginx | 300 / 150 / 100 | 360 / 180 / 110 |');
  });
});
