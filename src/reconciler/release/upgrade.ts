// The upgrade action: client-side when helm 4 recorded the release so (or refuses server-side apply for it), and a
// failed upgrade rolled back to the last deployed revision (a failed rollback is thrown with the failure).
// Called by step.ts through the chart rollout's gate; never writes the CR.
import { errFields } from '../../core/error-fields.js';
import type { Release } from '../../helm/types.js';
import { failureMessage, refusedByServerSideApply } from '../classify.js';
import {
  type ActionContext,
  appliedClientSide,
  noteClientSide,
  noteUnknownFields,
  objectNames,
  type RemediationResult,
  renderParams,
  summary,
} from './action.js';
import { RemediationFailedError } from './remediation-error.js';

export async function upgrade(ctx: ActionContext, deployed: Release): Promise<Release> {
  const { name: release, signal } = ctx.run;
  let clientSideApply = appliedClientSide(deployed);
  for (;;) {
    try {
      const result = await ctx.helm.upgrade({
        ...renderParams(ctx),
        names: [...ctx.names, ...objectNames(deployed.manifest)],
        force: ctx.run.annotations.options.upgradeForce,
        disableHooks: ctx.run.annotations.options.upgradeDisableHooks,
        clientSideApply,
        signal,
      });
      ctx.run.note('Normal', 'UpgradeSucceeded', `Upgraded release ${release} to revision ${result.version}`);
      noteUnknownFields(ctx, result);
      return result;
    } catch (err) {
      if (!signal.aborted && !clientSideApply && refusedByServerSideApply(err)) {
        // Over the failed revision, as `helm upgrade` allows; a rollback follows only if this fails too.
        clientSideApply = true;
        noteClientSide(ctx, 'upgrade', err);
        continue;
      }
      ctx.run.note('Warning', 'UpgradeFailed', `Upgrade of release ${release} failed: ${failureMessage(err)}`);
      const undo = signal.aborted ? undefined : await rollbackFailedUpgrade(ctx, deployed);
      throw undo ? new RemediationFailedError(err, 'rollback', undo.error) : err;
    }
  }
}

async function rollbackFailedUpgrade(ctx: ActionContext, deployed: Release): Promise<RemediationResult> {
  const { name: release, namespace, signal } = ctx.run;
  try {
    const after = await summary(ctx);
    // Nothing to undo when helm recorded no new revision (a render error) or the deployed one is still the latest.
    if (!after.latest || after.latest.version <= deployed.version) return undefined;
    const revision = deployed.version;
    const clientSideApply = appliedClientSide(deployed);
    await ctx.helm.rollback({
      release,
      namespace,
      revision,
      force: ctx.run.annotations.options.rollbackForce,
      clientSideApply,
      signal,
    });
    ctx.run.note(
      'Normal',
      'RolledBack',
      `Rolled back release ${release} to revision ${revision} after the failed upgrade`,
    );
    ctx.run.log.info({ release, revision }, 'Rolled back release');
    return undefined;
  } catch (err) {
    ctx.run.note('Warning', 'RollbackFailed', `Rollback of release ${release} failed: ${failureMessage(err)}`);
    ctx.run.log.warn({ release, err: errFields(err) }, 'Error rolling back release');
    return { error: err };
  }
}
