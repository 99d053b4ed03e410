// The helm actions of one reconcile with their failure remediation: a failed install is uninstalled, a failed upgrade
// is rolled back to the last deployed revision, a release stuck in pending-* (no helm of ours on it) is recovered; a
// failed remediation is thrown with the failure (RemediationFailedError); fields the API server dropped become
// UnknownField events. Called by release/step.ts; never writes the CR (it returns what happened for the status).
import { errFields } from '../../core/error-fields.js';
import type { Logger } from '../../core/logger.js';
import { type HistorySummary, isPending, summarize } from '../../helm/history.js';
import { splitManifest } from '../../helm/manifest.js';
import type { AppliedRelease, HelmClient, Release } from '../../helm/types.js';
import type { ReleaseReader } from '../../records/types.js';
import { failureMessage, refusedByServerSideApply } from '../classify.js';
import type { ReleaseOptions } from '../inputs/annotations.js';
import { RemediationFailedError } from './remediation-error.js';

export interface ActionContext {
  readonly release: string;
  readonly namespace: string;
  readonly chart: string;
  /** Names never redacted from helm's words (the chart's; the release and namespace are always kept). */
  readonly names: readonly string[];
  readonly values: Readonly<Record<string, unknown>>;
  readonly labels: Readonly<Record<string, string>>;
  /** The post-renderer's per-call arguments (which CR owns the objects). @default none */
  readonly postRenderArgs?: readonly string[];
  readonly options: ReleaseOptions;
  readonly helm: HelmClient;
  readonly releases: ReleaseReader;
  readonly log: Logger;
  /** Records what the operator did (Normal) or had to undo (Warning), for events. */
  readonly note: (type: 'Normal' | 'Warning', reason: string, message: string) => void;
  readonly signal: AbortSignal;
}

/** What install and upgrade both hand helm: the release, the chart, its values, the record labels, the post-renderer. */
/** helm 4's record of a release it applied client-side (`apply_method`), as helm 3 applies every release. */
const CLIENT_SIDE = 'csa';

function renderParams(ctx: ActionContext) {
  return {
    release: ctx.release,
    namespace: ctx.namespace,
    chart: ctx.chart,
    values: ctx.values,
    labels: ctx.labels,
    names: ctx.names,
    ...(ctx.postRenderArgs ? { postRenderArgs: ctx.postRenderArgs } : {}),
  };
}

/** The names of the objects of a release's manifest, which redaction must not hide ([] when it cannot be read). */
function objectNames(manifest: string): string[] {
  try {
    return [...new Set(splitManifest(manifest).map((o) => o.metadata.name))];
  } catch {
    return [];
  }
}

async function summary(ctx: ActionContext): Promise<HistorySummary> {
  const history = await ctx.releases.history(ctx.namespace, ctx.release, { signal: ctx.signal });
  return summarize(history.map((h) => h.release));
}

/**
 * Unlocks a release whose latest revision is pending-* while no helm process of this operator works on it (the
 * caller checks that): pending-upgrade/-rollback roll back to the last deployed revision; pending-install, or
 * pending without any deployed revision, is uninstalled so that it can be installed again. Returns the new state.
 */
export async function recoverPending(ctx: ActionContext, state: HistorySummary): Promise<HistorySummary> {
  const latest = state.latest;
  if (!latest || !isPending(latest.info.status)) return state;
  const { release, namespace, signal } = ctx;
  const from = latest.info.status;
  if (from === 'pending-install' || !state.deployed) {
    await ctx.helm.uninstall({ release, namespace, signal });
    ctx.note('Warning', 'ReleaseRecovered', `Release ${release} was stuck in ${from}; uninstalled it to install again`);
  } else {
    const revision = state.deployed.version;
    await ctx.helm.rollback({ release, namespace, revision, force: ctx.options.rollbackForce, signal });
    ctx.note(
      'Warning',
      'ReleaseRecovered',
      `Release ${release} was stuck in ${from}; rolled back to revision ${revision}`,
    );
  }
  ctx.log.info({ release, from }, 'Recovered stuck release');
  return summary(ctx);
}

export async function install(ctx: ActionContext, state: HistorySummary): Promise<Release> {
  const { release, namespace, signal } = ctx;
  if (state.latest) {
    // A release without a deployed revision (a failed install) is removed so that the install starts clean.
    ctx.log.info({ release, status: state.latest.info.status }, 'Removing release without a deployed revision');
    await ctx.helm.uninstall({ release, namespace, signal });
  }
  let clientSideApply = false;
  for (;;) {
    try {
      const result = await ctx.helm.install({
        ...renderParams(ctx),
        disableHooks: ctx.options.installDisableHooks,
        clientSideApply,
        signal,
      });
      ctx.note('Normal', 'InstallSucceeded', `Installed release ${release} revision ${result.version}`);
      noteUnknownFields(ctx, result);
      return result;
    } catch (err) {
      const undo = signal.aborted ? undefined : await uninstallFailedInstall(ctx);
      if (!undo && !clientSideApply && refusedByServerSideApply(err)) {
        clientSideApply = true;
        noteClientSide(ctx, 'install', err);
        continue;
      }
      ctx.note('Warning', 'InstallFailed', `Install of release ${release} failed: ${failureMessage(err)}`);
      throw undo ? new RemediationFailedError(err, 'uninstall', undo.error) : err;
    }
  }
}

/**
 * helm 4's server-side apply refused an object that helm 3 and operator-sdk apply (a keyed list that repeats a key):
 * the action runs again with client-side apply, which helm 4 then keeps for the release ("auto").
 */
function noteClientSide(ctx: ActionContext, action: 'install' | 'upgrade', err: unknown): void {
  const message = `helm's server-side apply refused an object of release ${ctx.release} (${failureMessage(err)}); running the ${action} again with client-side apply, as helm 3 does`;
  ctx.note('Warning', 'ServerSideApplyRefused', message);
  ctx.log.info({ release: ctx.release, action }, 'Retrying with client-side apply');
}

/**
 * One `UnknownField` Warning per object (or one for fields no object of the manifest holds): the API server dropped
 * those fields, which helm only printed. Paths and object names only, never values.
 */
function noteUnknownFields(ctx: ActionContext, result: AppliedRelease): void {
  const byObject = new Map<string, string[]>();
  for (const { field, objects } of result.unknownFields ?? []) {
    for (const obj of objects.length === 0 ? [''] : objects) byObject.set(obj, [...(byObject.get(obj) ?? []), field]);
  }
  for (const [obj, fields] of byObject) {
    const what = obj === '' ? `an object of release ${ctx.release}` : `${obj} of release ${ctx.release}`;
    const list = fields.map((f) => `"${f}"`).join(', ');
    const noun = fields.length === 1 ? 'field' : 'fields';
    ctx.note('Warning', 'UnknownField', `The API server ignored unknown ${noun} ${list} of ${what}`);
  }
}

/** What a failed remediation threw (it is also logged here); undefined when it succeeded or had nothing to do. */
type RemediationResult = { readonly error: unknown } | undefined;

async function uninstallFailedInstall(ctx: ActionContext): Promise<RemediationResult> {
  const { release, namespace, signal } = ctx;
  try {
    const after = await summary(ctx);
    if (!after.latest) return undefined; // helm failed before recording anything (e.g. a render error)
    await ctx.helm.uninstall({ release, namespace, signal });
    ctx.log.info({ release }, 'Uninstalled failed install');
    return undefined;
  } catch (err) {
    ctx.log.warn({ release, err: errFields(err) }, 'Could not uninstall failed install');
    return { error: err };
  }
}

export async function upgrade(ctx: ActionContext, deployed: Release): Promise<Release> {
  const { release, signal } = ctx;
  let clientSideApply = deployed.applyMethod === CLIENT_SIDE;
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
    const clientSideApply = deployed.applyMethod === CLIENT_SIDE;
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
