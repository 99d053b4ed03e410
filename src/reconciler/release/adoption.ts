// Adopts a deployed release this operator did not install (operator-sdk's, or one of its own from before it labelled
// its records): checked once as operator-sdk checks every release, by a dry-run upgrade compared with the deployed
// manifest (adoption-compare.ts). The same: its record gets the fingerprint label (no helm upgrade, no revision, no
// object touched); different: upgraded as usual. Called by step.ts. Never writes an object of the release.
import type { Verdict } from '../../adoption/queue.js';
import { errFields } from '../../core/error-fields.js';
import { OperatorError } from '../../core/errors.js';
import type { Release } from '../../helm/types.js';
import { groupKindOf } from '../../ownership/rules.js';
import type { StoredRelease } from '../../records/types.js';
import { failureMessage } from '../classify.js';
import type { LoadedChartMemo } from '../inputs/loaded-chart.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { ReconcileRun } from '../run.js';
import type { AdoptionChecks } from '../types.js';
import { type ActionContext, objectNames } from './action.js';
import { compareRendering, type OwnMarks } from './adoption-compare.js';

/** The dry-run upgrade that checks a release failed: the CR is Irreconcilable, as operator-sdk's failed dry run. */
export class AdoptionCheckError extends OperatorError {
  readonly code = 'ADOPTION_CHECK_FAILED';
  constructor(release: string, cause: unknown) {
    super(`cannot check release ${release} before adopting it: ${failureMessage(cause)}`, { cause });
  }
}

export interface AdoptionDeps extends Pick<HelmReconcilerOptions, 'helm' | 'watch' | 'chartName' | 'labelRecord'> {
  readonly loadedChart: LoadedChartMemo;
  readonly adoption: AdoptionChecks;
  /** Checks go to the queue's background slots (a queue that wakes CRs); otherwise each runs in its reconcile. */
  readonly adoptInBackground: boolean;
}

export interface AdoptionFacts {
  /** The deployed revision, the newest, whose record has no fingerprint label. */
  readonly deployed: StoredRelease;
  /** This reconcile's fingerprint label value. */
  readonly fingerprint: string;
  /** Strings from values-from Secrets, hidden from helm's words. */
  readonly secrets: readonly string[];
  /** Check in this reconcile even with a background queue: the values differ from the release's (a real change). */
  readonly inline: boolean;
}

/**
 * - `adopted`: the release is what would be rendered now; its record is labelled (once; later calls say `in-sync`);
 * - `upgrade`: it differs, upgrade it as operator-sdk would;
 * - `pending`: a background check was asked for (or runs); the CR is woken when it is done.
 * Throws an AdoptionCheckError when the check failed.
 */
export type Adoption = 'adopted' | 'in-sync' | 'upgrade' | 'pending';

export async function adoptionStep(
  ctx: ActionContext,
  run: ReconcileRun,
  d: AdoptionDeps,
  facts: AdoptionFacts,
): Promise<Adoption> {
  const { key } = run;
  const deployed = facts.deployed.release;
  const ident = `${deployed.version}/${facts.fingerprint}`;
  if (d.adoption.adopted(key, ident)) return 'in-sync';
  let verdict = d.adoption.verdict(key, ident);
  if (!verdict) {
    const check = (signal: AbortSignal) => renderAndCompare(ctx, run, d, facts, signal);
    if (d.adoptInBackground && !facts.inline) {
      if (!d.adoption.pending(key, ident)) {
        run.log.debug({ release: ctx.run.name, revision: deployed.version }, 'Adoption check queued');
      }
      d.adoption.schedule(key, ident, check);
      return 'pending';
    }
    verdict = await check(run.signal);
    if (verdict.kind !== 'failed') d.adoption.record(key, ident, verdict); // a failure: the retry checks again
  }
  if (verdict.kind === 'failed') throw new AdoptionCheckError(ctx.run.name, verdict.error);
  if (verdict.kind === 'differs') {
    const first = verdict.first;
    run.log.info({ release: ctx.run.name, revision: deployed.version, differs: first }, 'Release differs, upgrading');
    return 'upgrade';
  }
  await label(ctx, run, d, deployed, facts.fingerprint);
  d.adoption.markAdopted(key, ident);
  run.log.info({ release: ctx.run.name, revision: deployed.version }, 'Adopted release');
  run.note('Normal', 'ReleaseAdopted', adoptedMessage(ctx.run.name, deployed.version));
  return 'adopted';
}

export function adoptedMessage(release: string, revision: number): string {
  return (
    `Adopted release ${release} (revision ${revision}) without an upgrade: ` +
    'its manifest is what this chart and these values render'
  );
}

/** The dry-run upgrade (the process-wide helm: a background check outlives its reconcile), then the comparison. */
async function renderAndCompare(
  ctx: ActionContext,
  run: ReconcileRun,
  d: AdoptionDeps,
  facts: AdoptionFacts,
  signal: AbortSignal,
): Promise<Verdict> {
  const deployed = facts.deployed.release;
  try {
    const chart = await d.loadedChart.get({ signal });
    const rendered = await d.helm.dryRunUpgrade({
      release: ctx.run.name,
      namespace: ctx.run.namespace,
      chart: chart.path,
      values: ctx.values,
      dryRun: serverSide(d.watch.dryRunOption) ? 'server' : 'client',
      names: [...ctx.names, ...objectNames(deployed.manifest)],
      secrets: facts.secrets,
      timeoutMs: ctx.run.annotations.options.helmTimeoutMs,
      signal,
    });
    const c = compareRendering(deployed.manifest, rendered.manifest, marksOf(run, d.chartName));
    return c.same ? { kind: 'same' } : { kind: 'differs', first: c.first };
  } catch (error) {
    if (signal.aborted) throw error;
    return { kind: 'failed', error };
  }
}

/** helm's upgrade reads the cluster while rendering (lookup) for these dryRunOption values, as operator-sdk's. */
function serverSide(option: string | undefined): boolean {
  return option === 'server' || option === 'none' || option === 'false';
}

/** The marks this operator's post-renderer gives the objects of the CR's release. */
function marksOf(run: ReconcileRun, chart: string): OwnMarks {
  const { cr } = run;
  return {
    chart,
    uid: cr.metadata.uid ?? '',
    primaryResource: `${run.namespace}/${run.name}`,
    primaryResourceType: groupKindOf(cr.apiVersion, cr.kind),
  };
}

/**
 * The fingerprint label on the deployed revision's record, as `helm --labels` would have written it (helm 3 and 4
 * keep such labels on the Secret only, and carry them over when they update the record). A failed write is logged:
 * the adoption stands for this process, and the next start checks the release again.
 */
async function label(ctx: ActionContext, run: ReconcileRun, d: AdoptionDeps, deployed: Release, fingerprint: string) {
  if (!d.labelRecord) return;
  try {
    await d.labelRecord(ctx.run.namespace, ctx.run.name, deployed.version, ctx.labels, run.signal);
  } catch (err) {
    if (run.signal.aborted) throw err;
    const fields = { release: ctx.run.name, revision: deployed.version, fingerprint, err: errFields(err) };
    run.log.warn(fields, 'Cannot label the adopted release record');
  }
}
