// The state phase: the release's history read from Helm's records (no helm process), summarized, and checked to be
// this watch's chart. A release of another chart under the CR's name is left untouched and the CR Irreconcilable.
// Called by step.ts; never runs helm.
import type { HistorySummary } from '../../helm/history.js';
import { summarize } from '../../helm/history.js';
import type { StoredRelease } from '../../records/types.js';
import { failureMessage } from '../classify.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { ReconcileRun } from '../run.js';
import { markIrreconcilable } from '../status/draft.js';

export type StateDeps = Pick<HelmReconcilerOptions, 'releases' | 'chartName'>;

export interface ReleaseRecords {
  readonly history: readonly StoredRelease[];
  readonly state: HistorySummary;
}

/** The release's records and their summary; undefined when the release belongs to another chart. */
export async function readRelease(run: ReconcileRun, d: StateDeps): Promise<ReleaseRecords | undefined> {
  const { namespace, name: release, signal } = run;
  const history = await d.releases.history(namespace, release, { signal }).catch((err: unknown) => {
    markIrreconcilable(run, `cannot read release ${release}: ${failureMessage(err)}`);
    throw err;
  });
  const state = summarize(history.map((h) => h.release));
  const owner = state.latest?.chart.name;
  if (owner !== undefined && owner !== d.chartName) {
    markIrreconcilable(
      run,
      `release ${release} already exists and belongs to chart ${JSON.stringify(owner)}, not ${JSON.stringify(d.chartName)}; it is left untouched`,
    );
    return undefined;
  }
  return { history, state };
}
