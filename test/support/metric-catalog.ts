// The operator's metric catalog as a scrape shows it: builds a live OperatorMetrics, exercises every method so that
// each labelled family has a series, renders it and reads the series names (histograms' _bucket/_sum/_count) and
// their label names. Used by the tests that check the scaffold's alert rules and dashboards; never starts a server.
import { OperatorMetrics } from '../../src/observability/metrics.js';

/** Labels Prometheus adds to every series of a ServiceMonitor target. */
export const TARGET_LABELS: readonly string[] = [
  'job',
  'namespace',
  'pod',
  'instance',
  'service',
  'endpoint',
  'container',
];

/** Series name → label names, from a live registry. */
export async function metricCatalog(): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
  const m = new OperatorMetrics({ version: 'test' });
  const c = m.controller('nginx-controller');
  c.init(2, () => 1);
  c.reconciled('error', 0.5);
  c.activeWorkers(1);
  c.queueAdd();
  c.queueGet('ns/a', 0.1);
  c.queueDone('ns/a', 0.2);
  c.queueRetry();
  m.resourceSeen({ name: 'a', namespace: 'ns', group: 'g', version: 'v1', kind: 'K' }, '2024-01-01T00:00:00Z');
  m.helmExec('install', 'error', 1);
  m.helmStillRunning(() => ({ install: 0 }));
  m.driftCorrected('nginx-controller', 'Deployment', 'patched');
  m.dependentObjects(() => 3);
  m.leaderElection('lease', true);
  m.shardsHeld(1);
  m.chartRollout('nginx-controller', { pending: 1, upgraded: 1, failed: 0 });
  const catalog = new Map<string, Set<string>>();
  for (const line of (await m.render()).body.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)$/.exec(line);
    if (type?.[1]) {
      const suffixes = type[2] === 'histogram' || type[2] === 'summary' ? ['_sum', '_count', '_bucket'] : [''];
      for (const s of suffixes) catalog.set(`${type[1]}${s}`, new Set());
      continue;
    }
    const series = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!series?.[1]) continue;
    const labels = catalog.get(series[1]) ?? new Set<string>();
    for (const [, name] of (series[2] ?? '').matchAll(/(\w+)="/g)) labels.add(name as string);
    catalog.set(series[1], labels);
  }
  return catalog;
}
