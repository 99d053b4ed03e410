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
  const { release, signal } = ctx;
  let clientSideApply = appliedClientSide(deployed);
  for (;;) {
    try {
      const result = await ctx.helm.upgrade({
        ...renderParams(ctx),
        names: [...ctx.names, ...objectNames(deployed.manifest)],
        force: ctx.options.upgradeForce,
        disableHooks: ctx.options.upgradeDisableHooks,
        clientSideApply,
        signal,
      });
      ctx.note('Normal', 'UpgradeSucceeded', `Upgraded release ${release} to revision ${result.version}`);
      noteUnknownFields(ctx, result);
      return result;
    } catch (err) {
      if (!signal.aborted && !clientSideApply && refusedByServerSideApply(err)) {
        // Over the failed revision, as `helm upgrade` allows; a rollback follows only if this fails too.
        clientSideApply = true;
        noteClientSide(ctx, 'upgrade', err);
        continue;
      }
      ctx.note('Warning', 'UpgradeFailed', `Upgrade of release ${release} failed: ${failureMessage(err)}`);
      const undo = signal.aborted ? undefined : await rollbackFailedUpgrade(ctx, deployed);
      throw undo ? new RemediationFailedError(err, 'rollback', undo.error) : err;
    }
  }
}

async function rollbackFailedUpgrade(ctx: ActionContext, deployed: Release): Promise<RemediationResult> {
  const { release, namespace, signal } = ctx;
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
      force: ctx.options.rollbackForce,
      clientSideApply,
      signal,
    });
    ctx.note('Normal', 'RolledBack', `Rolled back release ${release} to revision ${revision} after the failed upgrade`);
    ctx.log.info({ release, revision }, 'Rolled back release');
    return undefined;
  } catch (err) {
    ctx.note('Warning', 'RollbackFailed', `Rollback of release ${release} failed: ${failureMessage(err)}`);
    ctx.log.warn({ release, err: errFields(err) }, 'Error rolling back release');
    return { error: err };
  }
}
