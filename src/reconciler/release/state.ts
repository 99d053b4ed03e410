// Reads a reconcile's release records and names their state (records/release-state.ts): the CR is Irreconcilable
// when they cannot be read. Called by step.ts; never runs helm.
import { type NamedState, releaseState } from '../../records/release-state.js';
import { failureMessage } from '../classify.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { ReconcileRun } from '../run.js';
import { markIrreconcilable } from '../status/draft.js';

export type StateDeps = Pick<HelmReconcilerOptions, 'releases' | 'chartName'>;

/** Reads the release's records (the CR Irreconcilable when they cannot be read) and names its state. */
export async function readRelease(run: ReconcileRun, d: StateDeps, fingerprint: string): Promise<NamedState> {
  const { namespace, name: release, signal } = run;
  // A CR without status was never reconciled: with sharding, its records are all labelled (no first LIST).
  const neverReconciled = run.cr.status === undefined;
  const history = await d.releases.history(namespace, release, { signal, neverReconciled }).catch((err: unknown) => {
    markIrreconcilable(run, `cannot read release ${release}: ${failureMessage(err)}`);
    throw err;
  });
  return releaseState({ history, chart: d.chartName, fingerprint });
}
