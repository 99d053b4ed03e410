// The install action: a release without a deployed revision is removed first, the install runs (with helm 4 again
// client-side when its server-side apply refuses an object), and a failed install is uninstalled (a failed
// remediation is thrown with the failure). Called by step.ts; never writes the CR.
import { errFields } from '../../core/error-fields.js';
import type { HistorySummary } from '../../helm/history.js';
import type { Release } from '../../helm/types.js';
import { failureMessage, refusedByServerSideApply } from '../classify.js';
import {
  type ActionContext,
  noteClientSide,
  noteUnknownFields,
  type RemediationResult,
  renderParams,
  summary,
} from './action.js';
import { RemediationFailedError } from './remediation-error.js';

export async function install(ctx: ActionContext, state: HistorySummary): Promise<Release> {
  const { name: release, namespace, signal } = ctx.run;
  if (state.latest) {
    // A release without a deployed revision (a failed install) is removed so that the install starts clean.
    ctx.run.log.info({ release, status: state.latest.info.status }, 'Removing release without a deployed revision');
    await ctx.helm.uninstall({ release, namespace, signal });
  }
  let clientSideApply = false;
  for (;;) {
    try {
      const result = await ctx.helm.install({
        ...renderParams(ctx),
        disableHooks: ctx.run.annotations.options.installDisableHooks,
        clientSideApply,
        signal,
      });
      ctx.run.note('Normal', 'InstallSucceeded', `Installed release ${release} revision ${result.version}`);
      noteUnknownFields(ctx, result);
      return result;
    } catch (err) {
      const undo = signal.aborted ? undefined : await uninstallFailedInstall(ctx);
      if (!undo && !clientSideApply && refusedByServerSideApply(err)) {
        clientSideApply = true;
        noteClientSide(ctx, 'install', err);
        continue;
      }
      ctx.run.note('Warning', 'InstallFailed', `Install of release ${release} failed: ${failureMessage(err)}`);
      throw undo ? new RemediationFailedError(err, 'uninstall', undo.error) : err;
    }
  }
}

async function uninstallFailedInstall(ctx: ActionContext): Promise<RemediationResult> {
  const { name: release, namespace, signal } = ctx.run;
  try {
    const after = await summary(ctx);
    if (!after.latest) return undefined; // helm failed before recording anything (e.g. a render error)
    await ctx.helm.uninstall({ release, namespace, signal });
    ctx.run.log.info({ release }, 'Uninstalled failed install');
    return undefined;
  } catch (err) {
    ctx.run.log.warn({ release, err: errFields(err) }, 'Could not uninstall failed install');
    return { error: err };
  }
}
