// Builds Grafana dashboard JSON (schemaVersion 39) from rows of panel specs: lays panels out left to right on the
// 24-column grid, numbers them, points every panel and target at the `datasource` variable, and adds the
// datasource, namespace, job and controller variables. Used by templates/grafana.ts; pure data, no I/O.

export interface Target {
  readonly expr: string;
  readonly legend: string;
}
export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly targets: readonly Target[];
  /** @default 'timeseries' */
  readonly type?: 'timeseries' | 'stat';
  /** Columns out of 24. @default 8 */
  readonly width?: number;
}
export interface RowSpec {
  readonly title: string;
  readonly panels: readonly PanelSpec[];
}
export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly rows: readonly RowSpec[];
}

/** Every panel and target reads the Prometheus the `datasource` variable names. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a JavaScript template
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' } as const;
const PANEL_HEIGHT = 8;
/** The helm-operator-ts dashboards carry this tag and link to each other by it. */
export const DASHBOARD_TAG = 'helm-operator';

/** `{namespace="$namespace", job="$job"}` plus `extra` matchers: the selector of every dashboard query. */
export function sel(extra = ''): string {
  return `{namespace="$namespace", job="$job"${extra ? `, ${extra}` : ''}}`;
}

export function dashboard(spec: DashboardSpec): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let y = 0;
  for (const row of spec.rows) {
    panels.push({
      id: panels.length + 1,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y },
      panels: [],
    });
    y += 1;
    let x = 0;
    for (const p of row.panels) {
      const w = p.width ?? 8;
      if (x + w > 24) [x, y] = [0, y + PANEL_HEIGHT];
      panels.push(panel(p, panels.length + 1, { h: PANEL_HEIGHT, w, x, y }));
      x += w;
    }
    y += PANEL_HEIGHT;
  }
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: [DASHBOARD_TAG],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-3h', to: 'now' },
    timepicker: {},
    timezone: '',
    annotations: { list: [] },
    links: [{ type: 'dashboards', tags: [DASHBOARD_TAG], title: 'helm-operator dashboards', asDropdown: false }],
    templating: { list: variables() },
    panels,
  };
}

function panel(p: PanelSpec, id: number, gridPos: Record<string, number>): Record<string, unknown> {
  const type = p.type ?? 'timeseries';
  return {
    id,
    type,
    title: p.title,
    description: p.description,
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: { defaults: { unit: p.unit, min: 0 }, overrides: [] },
    options:
      type === 'stat'
        ? {
            reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
            colorMode: 'value',
            graphMode: 'area',
          }
        : {
            legend: { displayMode: 'table', placement: 'bottom', showLegend: true, calcs: ['mean', 'max'] },
            tooltip: { mode: 'multi', sort: 'desc' },
          },
    targets: p.targets.map((t, i) => ({
      datasource: DATASOURCE,
      editorMode: 'code',
      expr: t.expr,
      legendFormat: t.legend,
      range: true,
      refId: String.fromCharCode(65 + i),
    })),
  };
}

function variables(): Record<string, unknown>[] {
  const query = (name: string, label: string, q: string, all: boolean) => ({
    name,
    label,
    type: 'query',
    datasource: DATASOURCE,
    definition: q,
    query: { query: q, refId: `${name}-variable` },
    refresh: 2,
    sort: 1,
    hide: 0,
    includeAll: all,
    multi: all,
    ...(all ? { current: { text: ['All'], value: ['$__all'] }, allValue: '.+' } : {}),
  });
  return [
    { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', refresh: 1, hide: 0 },
    query('namespace', 'Namespace', 'label_values(helm_operator_build_info, namespace)', false),
    query('job', 'Job', 'label_values(helm_operator_build_info{namespace="$namespace"}, job)', false),
    query('controller', 'Controller', `label_values(controller_runtime_reconcile_total${sel()}, controller)`, true),
  ];
}
