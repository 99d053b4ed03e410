// The helm metrics middleware: every call is timed into helm_operator_helm_exec_duration_seconds{action,result},
// and the release commands still running past their HelmStillRunning threshold can be counted at each scrape
// (helm_operator_helm_still_running{action}). Called by the CLI (cmd/run.ts), which hands it to the process-wide chain;
// it never changes arguments, results or errors.
import type { Logger } from '../core/logger.js';
import type { HelmCommand, HelmMiddleware, ReleaseCommand } from '../helm/middleware.js';
import { DEFAULT_HELM_TIMEOUT_MS, stillRunningAfterMs } from '../helm/timeout.js';

export type HelmObserver = (action: HelmCommand, result: 'success' | 'error', seconds: number) => void;

/** Times each call into the metric, and logs it at debug as 'Helm finished' (what the bench counts). */
export function metricAndDebugLog(metrics: { helmExec: HelmObserver }, log: Logger): HelmObserver {
  return (action, result, seconds) => {
    metrics.helmExec(action, result, seconds);
    log.debug({ action, result, seconds }, 'Helm finished');
  };
}

const RELEASE_COMMANDS: readonly ReleaseCommand[] = ['install', 'upgrade', 'dry-run', 'uninstall', 'rollback'];

/** The helm release commands running now, each with its start and its HelmStillRunning threshold. */
export class HelmRuns {
  readonly #running = new Set<{ readonly action: ReleaseCommand; readonly dueAt: number }>();

  /** Records a run that starts now; the returned function ends it. */
  start(action: ReleaseCommand, timeoutMs = DEFAULT_HELM_TIMEOUT_MS): () => void {
    const run = { action, dueAt: performance.now() + stillRunningAfterMs(timeoutMs) };
    this.#running.add(run);
    return () => this.#running.delete(run);
  }

  /** How many runs of each action have outlived their threshold (every action listed, 0 when none). */
  stillRunning(now = performance.now()): Record<ReleaseCommand, number> {
    const counts = Object.fromEntries(RELEASE_COMMANDS.map((a) => [a, 0])) as Record<ReleaseCommand, number>;
    for (const run of this.#running) if (run.dueAt <= now) counts[run.action]++;
    return counts;
  }
}

/** Times each call into `observe`, and counts the release commands running now into `runs`. */
export function helmMetrics(observe: HelmObserver, runs?: HelmRuns): HelmMiddleware {
  return {
    name: 'metrics',
    async around(action, params, next) {
      const started = performance.now();
      const end = action === 'version' ? undefined : runs?.start(action, params.timeoutMs);
      try {
        const out = await next(params);
        observe(action, 'success', (performance.now() - started) / 1000);
        return out;
      } catch (err) {
        observe(action, 'error', (performance.now() - started) / 1000);
        throw err;
      } finally {
        end?.();
      }
    },
  };
}
