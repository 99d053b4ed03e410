// Which other deleting CR may go in the same uninstall job as a deletion pass's own (the queue asks, uninstall/queue.ts):
// of this chart, being deleted with our finalizer, the same hook and timeout options, no uninstall-wait (its requeue
// belongs to its own pass), no invalid annotation (its own pass warns), no failed uninstall on record (it goes alone,
// on its own backoff). Called by deletion.ts; reads the member's records, never writes anything.
import { hasOurFinalizer } from '../../finalizers/finalizers.js';
import type { Release } from '../../helm/types.js';
import { releaseState } from '../../records/release-state.js';
import { releaseOptions } from '../inputs/annotations.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { RunStart } from '../run.js';
import { readStatus } from '../status/status.js';
import type { CustomResource } from '../types.js';

export type CompanyOptions = Pick<HelmReconcilerOptions, 'chartName' | 'watch' | 'releases'>;

/** For the pass `r`: a deleting CR's newest record when it may go with `r`'s release, else undefined. */
export function company(o: CompanyOptions, r: RunStart) {
  const mine = r.annotations.options;
  return async (cr: CustomResource, signal: AbortSignal): Promise<Release | undefined> => {
    if (!cr.metadata.deletionTimestamp || !hasOurFinalizer(cr.metadata.finalizers)) return undefined;
    if (lastUninstallFailed(cr)) return undefined;
    const opts = releaseOptions(cr.metadata.annotations, { helmTimeoutMs: o.watch.helmTimeoutMs });
    const same =
      opts.warnings.length === 0 &&
      !opts.uninstallWait &&
      opts.uninstallDisableHooks === mine.uninstallDisableHooks &&
      opts.helmTimeoutMs === mine.helmTimeoutMs;
    if (!same) return undefined;
    const history = await o.releases.history(cr.metadata.namespace ?? '', cr.metadata.name, { signal });
    const { state, summary } = releaseState({ history, chart: o.chartName });
    return state === 'Unmanaged' ? undefined : summary.latest;
  };
}

/** The CR's last uninstall failed (ReleaseFailed, UninstallError): helm would likely stop a job at it again. */
function lastUninstallFailed(cr: CustomResource): boolean {
  return (readStatus(cr.status).conditions ?? []).some(
    (c) => c.type === 'ReleaseFailed' && c.status === 'True' && c.reason === 'UninstallError',
  );
}
