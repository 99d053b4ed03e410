// The in-process lanes of the uninstall queue: the releases of one coalesced job uninstalled with the operator's own
// API client, a few at a time, each outcome handed on as soon as it is known. Called by queue.ts only; never throws
// (a failure is an outcome) and never writes a CR: each CR's own reconcile does that.
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { Release } from '../helm/types.js';
import type { Uninstaller, UninstallOutcome } from './uninstaller.js';

/** In-process uninstalls one job runs at once. */
export const IN_PROCESS_PARALLEL = 8;

/** What became of one release of a job: the uninstaller's outcome, or the error its uninstall failed with. */
export type LaneOutcome = UninstallOutcome | { readonly error: unknown };

export interface LanesOptions {
  readonly uninstaller: Pick<Uninstaller, 'uninstall'>;
  /** The newest record of each release, in the order they start. */
  readonly releases: readonly Release[];
  readonly namespace: string;
  readonly disableHooks: boolean;
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Called with each release's outcome as soon as it has one (index into `releases`). */
  readonly onOutcome: (index: number, outcome: LaneOutcome) => void;
  /** Called as a release's uninstall begins; a release `skip` names is left out. @default none */
  readonly onStart?: (index: number) => void;
  readonly skip?: (index: number) => boolean;
  /** @default IN_PROCESS_PARALLEL */
  readonly parallel?: number;
}

/** Runs every release's uninstall, `parallel` at a time; resolves once all have an outcome. */
export async function runLanes(o: LanesOptions): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < o.releases.length; i = next++) {
      if (o.skip?.(i)) continue;
      o.onStart?.(i);
      const newest = o.releases[i] as Release;
      const request = { newest, namespace: o.namespace, disableHooks: o.disableHooks, signal: o.signal, log: o.log };
      const outcome = await o.uninstaller.uninstall(request).catch((error: unknown) => ({ error }));
      o.onOutcome(i, outcome);
    }
  };
  const width = Math.max(1, Math.min(o.parallel ?? IN_PROCESS_PARALLEL, o.releases.length));
  await Promise.all(Array.from({ length: width }, lane));
}

/** A lane's outcome as log fields: the error (its causes kept), the reason it was declined, or the outcome. */
export function laneFields(outcome: LaneOutcome): Record<string, unknown> {
  if (typeof outcome === 'object' && 'error' in outcome) return { err: errFields(outcome.error) };
  if (typeof outcome === 'object') return { reason: outcome.declined };
  return { outcome };
}
