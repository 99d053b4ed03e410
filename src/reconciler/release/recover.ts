// Recovery of a release stuck in pending-* while no helm process of this operator works on it: roll back to the
// last deployed revision, or uninstall a release that never deployed. Called by step.ts (which holds the in-flight
// mark); never touches a release another helm may be working on.
import type { HistorySummary } from '../../helm/history.js';
import { isPending } from '../../helm/history.js';
import { type ActionContext, summary } from './action.js';

/**
 * Unlocks a release whose latest revision is pending-* while no helm process of this operator works on it (the
 * caller checks that): pending-upgrade/-rollback roll back to the last deployed revision; pending-install, or
 * pending without any deployed revision, is uninstalled so that it can be installed again. Returns the new state.
 */
export async function recoverPending(ctx: ActionContext, state: HistorySummary): Promise<HistorySummary> {
  const latest = state.latest;
  if (!latest || !isPending(latest.info.status)) return state;
  const { name: release, namespace, signal } = ctx.run;
  const from = latest.info.status;
  if (from === 'pending-install' || !state.deployed) {
    await ctx.helm.uninstall({ release, namespace, signal });
    ctx.run.note(
      'Warning',
      'ReleaseRecovered',
      `Release ${release} was stuck in ${from}; uninstalled it to install again`,
    );
  } else {
    const revision = state.deployed.version;
    await ctx.helm.rollback({ release, namespace, revision, force: ctx.run.annotations.options.rollbackForce, signal });
    ctx.run.note(
      'Warning',
      'ReleaseRecovered',
      `Release ${release} was stuck in ${from}; rolled back to revision ${revision}`,
    );
  }
  ctx.run.log.info({ release, from }, 'Recovered stuck release');
  return summary(ctx);
}
