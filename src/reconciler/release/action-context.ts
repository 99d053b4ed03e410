// What a release action of the helm step runs with (release/action.ts' ActionContext): the release, the chart and its
// values, the fingerprint label, the post-renderer's arguments and the per-reconcile helm chain; then the chart folder
// helm is handed, and the events of watches.yaml's overrides. Called by step.ts; never runs helm itself.

import { SHARD_LABEL } from '../../leader/shard-label.js';
import { FINGERPRINT_LABEL } from '../../records/release-state.js';
import type { Inputs } from '../inputs/inputs.js';
import { droppedMessage, type LoadedChartMemo } from '../inputs/loaded-chart.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { ReconcileRun } from '../run.js';
import type { ActionContext } from './action.js';
import { reconcileHelm } from './reconcile-helm.js';

export interface ContextDeps
  extends Pick<
    HelmReconcilerOptions,
    'watch' | 'chartName' | 'postRenderArgs' | 'shardOf' | 'helm' | 'clock' | 'releases' | 'suppressOverrideValues'
  > {
  readonly loadedChart: LoadedChartMemo;
}

export function actionContext(run: ReconcileRun, d: ContextDeps, inputs: Inputs): ActionContext {
  const { options } = run.annotations;
  const shard = d.shardOf?.(run.cr);
  return {
    run,
    chart: d.watch.chart,
    names: [d.chartName],
    values: inputs.values,
    // The shard label lets the replica holding the CR's shard watch only its own records (records/informers.ts).
    labels: { [FINGERPRINT_LABEL]: inputs.fingerprint, ...(shard === undefined ? {} : { [SHARD_LABEL]: shard }) },
    ...(d.postRenderArgs ? { postRenderArgs: d.postRenderArgs(run.cr) } : {}),
    // Every helm run gets the CR's --timeout; a slow one shows as an event and Reconciling in the status.
    helm: reconcileHelm({
      helm: d.helm,
      run,
      timeoutMs: options.helmTimeoutMs,
      clock: d.clock,
      secrets: inputs.secrets,
    }),
    releases: d.releases,
  };
}

/**
 * `ctx` with the chart folder helm's CLI is handed (loaded-chart.ts): a copy without the declared dependencies helm's
 * library does not load, which a DependencyDropped warning names, or the chart itself.
 */
export async function withLoadedChart(ctx: ActionContext, run: ReconcileRun, d: ContextDeps): Promise<ActionContext> {
  const chart = await d.loadedChart.get({ signal: ctx.run.signal });
  if (chart.dropped.length > 0) run.note('Warning', 'DependencyDropped', droppedMessage(chart));
  return { ...ctx, chart: chart.path };
}

/** A warning per overridden chart value (masked with --suppress-override-values), before each install or upgrade. */
export function overrideEvents(run: ReconcileRun, d: ContextDeps): void {
  for (const [k, v] of Object.entries(d.watch.overrideValues)) {
    const shown = d.suppressOverrideValues ? '****' : v;
    const message = `Chart value ${JSON.stringify(k)} overridden to ${JSON.stringify(shown)} by operator's watches.yaml`;
    run.note('Warning', 'OverrideValuesInUse', message);
  }
}
