// The inputs phase: the CR's spec validated, its values assembled (values-from references, then the spec, then the
// watch's overrideValues), the spec keys that shadow values-from ones (ValuesShadowed), and the fingerprint of
// everything a release is rendered from. Bad inputs, or a chart folder that is gone or unreadable, make the CR
// Irreconcilable and install nothing. Called by reconciler.ts; never runs helm.
import { ValuesFromError } from '../../config/values-from.js';
import { shadowMessage } from '../../config/values-from-shadow.js';
import { TerminalError } from '../../core/errors.js';
import type { HelmReconcilerOptions } from '../options.js';
import { retryAfterFailure } from '../retry.js';
import type { ReconcileRun } from '../run.js';
import { markIrreconcilable, noteShadowing } from '../status/draft.js';
import type { ChartDigestMemo } from './chart-digest-memo.js';
import { ChartUnreadableError } from './chart-unreadable.js';
import { fingerprintLabel, OWNERSHIP_RENDER, releaseFingerprint } from './fingerprint.js';
import { validateCustomResource } from './validate.js';
import { type ChartInputs, chartValues, valuesFromFailure } from './values-from.js';

export interface InputDeps
  extends Pick<HelmReconcilerOptions, 'references' | 'releaseBackoff' | 'watch' | 'postRenderArgs' | 'shardOf'> {
  /** The watch's overrideValues, parsed once at startup. */
  readonly overrides: Record<string, unknown>;
  readonly chartDigest: ChartDigestMemo;
}

/** The values (and the Secret strings among them), plus the fingerprint label of this reconcile's inputs. */
export interface Inputs extends ChartInputs {
  readonly fingerprint: string;
}

export async function readInputs(run: ReconcileRun, d: InputDeps): Promise<Inputs> {
  const { cr, key, log, signal } = run;
  if (run.requests.reconcileAt) log.info({ reconcileRequestedAt: run.requests.reconcileAt }, 'Reconcile requested');
  const valid = validateCustomResource(cr);
  if (!valid.ok) {
    markIrreconcilable(run, valid.message);
    throw new TerminalError(`${key}: ${valid.problem}`);
  }
  // values-from references, then the spec, then overrideValues; a reference problem installs nothing.
  const inputs = { cr, spec: valid.spec, overrides: d.overrides, reader: d.references, signal };
  const chart = await chartValues(inputs).catch((err: unknown) => {
    if (!(err instanceof ValuesFromError)) throw err;
    markIrreconcilable(run, err.message);
    throw valuesFromFailure(err, { key, failures: (run.base.failures ?? 0) + 1, backoff: d.releaseBackoff });
  });
  noteShadowing(run, shadowMessage(chart.shadowed));
  const shard = d.shardOf?.(cr);
  const options = {
    dryRunOption: d.watch.dryRunOption ?? '',
    ...(d.postRenderArgs ? { postRender: OWNERSHIP_RENDER } : {}),
    ...(shard === undefined ? {} : { shard }),
  };
  const chartDigest = await d.chartDigest.get({ signal }).catch((err: unknown) => {
    if (signal.aborted) throw err;
    const unreadable = new ChartUnreadableError(d.watch.chart, err);
    markIrreconcilable(run, unreadable.message);
    const backoff = d.releaseBackoff ? { backoff: d.releaseBackoff } : {};
    const failures = (run.base.failures ?? 0) + 1;
    throw retryAfterFailure({ key, message: unreadable.message, cause: unreadable, failures, ...backoff });
  });
  const fingerprint = fingerprintLabel(releaseFingerprint({ chartDigest, values: chart.values, options }));
  return { ...chart, fingerprint };
}
