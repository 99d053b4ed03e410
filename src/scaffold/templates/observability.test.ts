// config/prometheus/alerts.yaml and config/grafana: every PromQL expression parses and type checks, names only
// metrics and labels a live OperatorMetrics registry exposes, and the PrometheusRule and dashboards are well formed.
// The repository's own config/ holds exactly what init writes for its PROJECT.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricCatalog, TARGET_LABELS } from '../../../test/support/metric-catalog.js';
import { checkPromql } from '../../../test/support/promql.js';
import { parse } from '../../config/yaml.js';
import { readProject } from '../init/init.js';
import { grafanaFiles } from './grafana.js';
import { prometheusFiles } from './prometheus.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const ctx = { domain: 'example.com', projectName: 'memcached-operator' };
const JOB = 'memcached-operator-controller-manager-metrics-service';
/** What Grafana substitutes before a query reaches Prometheus. */
const GRAFANA_RANGES: Readonly<Record<string, string>> = { $__rate_interval: '1m', $__interval: '30s', $__range: '1h' };

// biome-ignore lint/suspicious/noExplicitAny: manifests and dashboards are checked field by field below
type Json = any;
let catalog: ReadonlyMap<string, ReadonlySet<string>>;
beforeAll(async () => {
  catalog = await metricCatalog();
});

/** Checks `expr` against the live registry; returns its facts. */
function checkAgainstRegistry(expr: string) {
  const facts = checkPromql(expr);
  expect(facts.metrics.size, expr).toBeGreaterThan(0);
  const known = new Set(TARGET_LABELS);
  for (const metric of facts.metrics) {
    const labels = catalog.get(metric);
    expect(labels, `${metric} is not a metric of src/observability/metrics.ts`).toBeDefined();
    for (const l of labels ?? []) known.add(l);
  }
  for (const label of facts.labels) expect(known.has(label), `label ${label} in ${expr}`).toBe(true);
  return facts;
}

const rule = (): Json => parse(prometheusFiles(ctx)['config/prometheus/alerts.yaml'] ?? '');
const alerts = (): Json[] => rule().spec.groups.flatMap((g: Json) => g.rules);
const dashboards = (): [string, Json][] =>
  Object.entries(grafanaFiles())
    .filter(([path]) => path.endsWith('.json'))
    .map(([path, text]) => [path, JSON.parse(text)]);

describe('config/prometheus/alerts.yaml', () => {
  it('is a PrometheusRule that config/prometheus lists next to the ServiceMonitor', () => {
    const r = rule();
    expect(r.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(r.kind).toBe('PrometheusRule');
    expect(r.metadata).toEqual({
      labels: { 'control-plane': 'controller-manager' },
      name: 'controller-manager-alerts',
      namespace: 'system',
    });
    expect(r.spec.groups.map((g: Json) => g.name)).toEqual(['memcached-operator.rules']);
    const kustomization = parse(prometheusFiles(ctx)['config/prometheus/kustomization.yaml'] ?? '') as Json;
    expect(kustomization.resources).toEqual(['monitor.yaml', 'alerts.yaml']);
  });

  it('alerts on downtime, leadership, reconcile errors, failing and hanging helm, queue growth and drift', () => {
    expect(alerts().map((a) => a.alert)).toEqual([
      'HelmOperatorDown',
      'HelmOperatorNoLeader',
      'HelmOperatorReconcileErrors',
      'HelmOperatorReleaseFailing',
      'HelmOperatorHelmStuck',
      'HelmOperatorWorkqueueGrowing',
      'HelmOperatorDriftCorrections',
    ]);
  });

  it('gives every alert a duration, a severity, a summary, a description and a runbook hint', () => {
    for (const a of alerts()) {
      expect(Object.keys(a).sort(), a.alert).toEqual(['alert', 'annotations', 'expr', 'for', 'labels']);
      expect(a.for, a.alert).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info'], a.alert).toContain(a.labels.severity);
      expect(Object.keys(a.annotations).sort(), a.alert).toEqual(['description', 'runbook', 'summary']);
      for (const text of Object.values(a.annotations)) expect((text as string).length, a.alert).toBeGreaterThan(20);
    }
  });

  it('uses only metrics and labels of the operator, selected by the metrics Service job', () => {
    for (const a of alerts()) {
      const facts = checkAgainstRegistry(a.expr);
      expect(facts.type, a.alert).toBe('vector');
      const selectors = a.expr.match(/\w+\{[^}]*\}/g) ?? [];
      for (const s of selectors) expect(s, a.alert).toContain(`job="${JOB}"`);
    }
  });

  it('names in its annotations only labels the alert expression keeps', () => {
    for (const a of alerts()) {
      const { output } = checkPromql(a.expr);
      const used = [...JSON.stringify(a.annotations).matchAll(/\$labels\.(\w+)/g)].map((m) => m[1]);
      expect(used.length, `${a.alert} names no label`).toBeGreaterThan(0);
      if (output !== 'any') for (const l of used) expect([...output], `${a.alert} uses $labels.${l}`).toContain(l);
    }
  });
});

describe('config/grafana', () => {
  it('has a controller-runtime and a helm dashboard in a ConfigMap for the Grafana sidecar', () => {
    const files = grafanaFiles();
    expect(Object.keys(files).sort()).toEqual([
      'config/grafana/controller-runtime-metrics.json',
      'config/grafana/helm-metrics.json',
      'config/grafana/kustomization.yaml',
    ]);
    const k = parse(files['config/grafana/kustomization.yaml'] ?? '') as Json;
    expect(k.configMapGenerator).toEqual([
      {
        name: 'helm-operator-dashboards',
        files: ['controller-runtime-metrics.json', 'helm-metrics.json'],
        options: { disableNameSuffixHash: true, labels: { grafana_dashboard: '1' } },
      },
    ]);
  });

  it.each(dashboards())(
    '%s has a uid, a schemaVersion, tags and the datasource, namespace and job variables',
    (_p, d) => {
      expect(d.uid).toMatch(/^[a-z0-9-]{1,40}$/);
      expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
      expect(d.title).toMatch(/^Helm operator \/ /);
      expect(d.tags).toEqual(['helm-operator']);
      const vars = d.templating.list as Json[];
      expect(vars.map((v) => v.name)).toEqual(['datasource', 'namespace', 'job', 'controller']);
      expect(vars[0]).toMatchObject({ type: 'datasource', query: 'prometheus' });
      for (const v of vars.slice(1)) {
        const [, selector] = /^label_values\((.+), \w+\)$/.exec(v.query.query) ?? [];
        expect(selector, v.name).toBeDefined();
        checkAgainstRegistry(selector ?? '');
      }
    },
  );

  it.each(dashboards())('%s has unique panel ids and panels inside the 24-column grid that do not overlap', (_p, d) => {
    const panels = d.panels as Json[];
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const cells = new Set<string>();
    for (const { gridPos: g, title } of panels) {
      for (const n of [g.x, g.y, g.w, g.h]) expect(Number.isInteger(n), title).toBe(true);
      expect(g.x + g.w, title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  it.each(dashboards())(
    '%s queries only metrics and labels of the operator, through the datasource variable',
    (_p, d) => {
      const panels = (d.panels as Json[]).filter((p) => p.type !== 'row');
      expect(panels.length).toBeGreaterThan(5);
      const defined = new Set((d.templating.list as Json[]).map((v) => v.name));
      for (const p of panels) {
        expect(['timeseries', 'stat'], p.title).toContain(p.type);
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
        expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(p.targets.length, p.title).toBeGreaterThan(0);
        expect(new Set(p.targets.map((t: Json) => t.refId)).size, p.title).toBe(p.targets.length);
        for (const t of p.targets) {
          expect(t.datasource, p.title).toEqual(p.datasource);
          for (const [, v] of t.expr.matchAll(/\$(\w+)/g))
            expect(defined.has(v) || `$${v}` in GRAFANA_RANGES, v).toBe(true);
          expect(checkAgainstRegistry(withRanges(t.expr)).type, p.title).toBe('vector');
        }
      }
    },
  );

  it('covers the reconcile, work queue, process and helm signals', () => {
    const queried = new Set(
      dashboards().flatMap(([, d]) =>
        (d.panels as Json[]).flatMap((p) =>
          (p.targets ?? []).flatMap((t: Json) => [...checkPromql(withRanges(t.expr)).metrics]),
        ),
      ),
    );
    for (const metric of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'workqueue_depth',
      'workqueue_retries_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'helm_operator_helm_exec_duration_seconds_bucket',
      'helm_operator_helm_exec_duration_seconds_count',
      'helm_operator_helm_still_running',
      'helm_operator_drift_corrections_total',
      'helm_operator_dependent_objects_cached',
      'leader_election_master_status',
    ]) {
      expect(queried, metric).toContain(metric);
    }
  });
});

/** A dashboard query as Grafana sends it: with its range variables replaced. */
function withRanges(expr: string): string {
  return Object.entries(GRAFANA_RANGES).reduce((e, [v, range]) => e.replaceAll(v, range), expr);
}

describe("the repository's own config/", () => {
  it('holds the alerts and dashboards init writes for its PROJECT', async () => {
    const project = await readProject(ROOT);
    const own = { ...ctx, domain: project.domain, projectName: project.projectName };
    const expected = { ...prometheusFiles(own), ...grafanaFiles() };
    for (const [path, text] of Object.entries(expected)) {
      expect(await readFile(join(ROOT, path), 'utf8'), `${path}: regenerate it with init`).toBe(text);
    }
  });

  it('lists every alert in docs/operations.md', async () => {
    const doc = await readFile(join(ROOT, 'docs/operations.md'), 'utf8');
    expect(
      alerts()
        .filter((a) => !doc.includes(`\`${a.alert}\``))
        .map((a) => a.alert),
    ).toEqual([]);
  });
});
