// What the helm actions of one reconcile share: their context (the run they read the release, log, events, signal
// and options from; the chart, values, record labels, the per-reconcile helm client, the records reader), the
// parameters install and upgrade both hand helm, and the events they note (UnknownField, ServerSideApplyRefused).
// Used by install.ts, upgrade.ts, recover.ts and step.ts; never runs helm itself.
import type { HistorySummary } from '../../helm/history.js';
import { splitManifest } from '../../helm/manifest.js';
import type { AppliedRelease, HelmClient, Release } from '../../helm/types.js';
import { summaryOf } from '../../records/release-state.js';
import type { ReleaseReader } from '../../records/types.js';
import { failureMessage } from '../classify.js';
import type { DraftRun } from '../run.js';

/**
 * What an action reads of its reconcile's run, not copied: the release (the CR's name and namespace), the log, the
 * CR's events, the signal, and the release options of its annotations.
 */
export type ActionRun = Pick<DraftRun, 'name' | 'namespace' | 'log' | 'note' | 'signal' | 'annotations'>;

export interface ActionContext {
  readonly run: ActionRun;
  readonly chart: string;
  /** Names never redacted from helm's words (the chart's; the release and namespace are always kept). */
  readonly names: readonly string[];
  readonly values: Readonly<Record<string, unknown>>;
  readonly labels: Readonly<Record<string, string>>;
  /** The post-renderer's per-call arguments (which CR owns the objects). @default none */
  readonly postRenderArgs?: readonly string[];
  readonly helm: HelmClient;
  readonly releases: ReleaseReader;
}

/**
 * Whether helm 4 upgrades or rolls back the release client-side: every record but one it applied server-side
 * (`ssa`), since helm 4 reads a record without `apply_method` (helm 3's, operator-sdk's) as client-side and then
 * refuses `--force-conflicts` ("forceConflicts enabled when serverSideApply disabled"). Ignored by helm 3.
 */
export function appliedClientSide(release: Pick<Release, 'applyMethod'>): boolean {
  return release.applyMethod !== 'ssa';
}

/** What install and upgrade both hand helm: the release, the chart, its values, the record labels, the post-renderer. */
export function renderParams(ctx: ActionContext) {
  return {
    release: ctx.run.name,
    namespace: ctx.run.namespace,
    chart: ctx.chart,
    values: ctx.values,
    labels: ctx.labels,
    names: ctx.names,
    ...(ctx.postRenderArgs ? { postRenderArgs: ctx.postRenderArgs } : {}),
  };
}

/** The names of the objects of a release's manifest, which redaction must not hide ([] when it cannot be read). */
export function objectNames(manifest: string): string[] {
  try {
    return [...new Set(splitManifest(manifest).map((o) => o.metadata.name))];
  } catch {
    return [];
  }
}

export async function summary(ctx: ActionContext): Promise<HistorySummary> {
  const history = await ctx.releases.history(ctx.run.namespace, ctx.run.name, { signal: ctx.run.signal });
  return summaryOf(history);
}

/**
 * helm 4's server-side apply refused an object that helm 3 and operator-sdk apply (a keyed list that repeats a key):
 * the action runs again with client-side apply, which helm 4 then keeps for the release ("auto").
 */
export function noteClientSide(ctx: ActionContext, action: 'install' | 'upgrade', err: unknown): void {
  const message = `helm's server-side apply refused an object of release ${ctx.run.name} (${failureMessage(err)}); running the ${action} again with client-side apply, as helm 3 does`;
  ctx.run.note('Warning', 'ServerSideApplyRefused', message);
  ctx.run.log.info({ release: ctx.run.name, action }, 'Retrying with client-side apply');
}

/**
 * One `UnknownField` Warning per object (or one for fields no object of the manifest holds): the API server dropped
 * those fields, which helm only printed. Paths and object names only, never values.
 */
export function noteUnknownFields(ctx: ActionContext, result: AppliedRelease): void {
  const byObject = new Map<string, string[]>();
  for (const { field, objects } of result.unknownFields ?? []) {
    for (const obj of objects.length === 0 ? [''] : objects) byObject.set(obj, [...(byObject.get(obj) ?? []), field]);
  }
  for (const [obj, fields] of byObject) {
    const what = obj === '' ? `an object of release ${ctx.run.name}` : `${obj} of release ${ctx.run.name}`;
    const list = fields.map((f) => `"${f}"`).join(', ');
    const noun = fields.length === 1 ? 'field' : 'fields';
    ctx.run.note('Warning', 'UnknownField', `The API server ignored unknown ${noun} ${list} of ${what}`);
  }
}

/** What a failed remediation threw (it is also logged here); undefined when it succeeded or had nothing to do. */
export type RemediationResult = { readonly error: unknown } | undefined;
