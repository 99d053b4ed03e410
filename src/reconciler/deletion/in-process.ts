// A deletion pass's in-process uninstall (uninstall/uninstaller.ts): its own release and those of the batch members
// it takes beside it (batch.ts), a few at a time, each reported gone as soon as it is, so that deleting many CRs is
// not held to one release per worker at a time. Called by deletion.ts; never throws: the pass's own failure is
// returned for it to report, and a member that fails or is declined is left to its own pass, which reports it.
import { errFields } from '../../core/error-fields.js';
import type { Release } from '../../helm/types.js';
import type { Uninstaller, UninstallOutcome } from '../../uninstall/uninstaller.js';
import type { RunStart } from '../run.js';
import type { BatchMember } from './batch.js';

/** In-process uninstalls one pass runs at once (its own and its members'). */
export const IN_PROCESS_PARALLEL = 8;

export interface InProcessBatch {
  readonly uninstaller: Pick<Uninstaller, 'uninstall'>;
  readonly r: RunStart;
  /** The pass's own release's newest record. */
  readonly newest: Release;
  readonly members: readonly BatchMember[];
  /** Called with each release uninstalled, the pass's own included. */
  readonly onGone: (release: string) => void;
}

export interface InProcessResult {
  /** What became of the pass's own release; `error` when its uninstall failed. */
  readonly own: UninstallOutcome | { readonly error: unknown };
  /** The members uninstalled. */
  readonly gone: readonly string[];
}

export async function uninstallInProcess(o: InProcessBatch): Promise<InProcessResult> {
  const { r } = o;
  const disableHooks = r.annotations.options.uninstallDisableHooks;
  const jobs = [o.newest, ...o.members.map((m) => m.newest)];
  const outcomes: (UninstallOutcome | { error: unknown })[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const newest = jobs[i] as Release;
      const request = { newest, namespace: r.namespace, disableHooks, signal: r.signal, log: r.log };
      outcomes[i] = await o.uninstaller.uninstall(request).catch((error: unknown) => ({ error }));
      if (outcomes[i] === 'uninstalled') o.onGone(newest.name);
      else if (i > 0) r.log.debug({ release: newest.name, ...describe(outcomes[i]) }, 'Left to its own pass');
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_PROCESS_PARALLEL, jobs.length) }, lane));
  return {
    own: outcomes[0] ?? 'not-found',
    gone: o.members.filter((_, i) => outcomes[i + 1] === 'uninstalled').map((m) => m.cr.metadata.name),
  };
}

function describe(outcome: UninstallOutcome | { error: unknown } | undefined): Record<string, unknown> {
  if (outcome !== undefined && typeof outcome === 'object' && 'error' in outcome)
    return { err: errFields(outcome.error) };
  if (outcome !== undefined && typeof outcome === 'object') return { reason: outcome.declined };
  return { outcome };
}
