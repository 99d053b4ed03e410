// The slow-helm middleware of one CR's reconcile: every install, upgrade, uninstall and rollback gets the CR's helm
// `--timeout`, and a run still going after stillRunningAfterMs(timeout) is made visible once per run: a Normal
// HelmStillRunning event, Reconciling=True/HelmStillRunning in the status and a log line. Built per reconcile by
// reconcile-helm.ts. A notice never fails a helm call; the call waits for its status write only.

import type { Clock } from '../../core/clock.js';
import { formatDuration } from '../../core/duration.js';
import { errFields } from '../../core/error-fields.js';
import type { HelmMiddleware, ReleaseCommand } from '../../helm/middleware.js';
import { stillRunningAfterMs } from '../../helm/timeout.js';
import type { HelmClient } from '../../helm/types.js';
import type { DraftRun } from '../run.js';
import { stillRunningStatus } from '../status/status.js';

/** The event reason and the Reconciling condition's reason. */
export const HELM_STILL_RUNNING = 'HelmStillRunning';

/** One helm run that has been going longer than its threshold. */
export interface StillRunning {
  readonly action: ReleaseCommand;
  readonly release: string;
  readonly elapsedMs: number;
  readonly timeoutMs: number;
}

/** "helm upgrade of release web has been running for 30s (timeout 2m); hooks or waits are holding a worker" */
export function stillRunningMessage(r: StillRunning): string {
  const elapsed = formatDuration(r.elapsedMs < 1000 ? r.elapsedMs : Math.round(r.elapsedMs / 1000) * 1000);
  return (
    `helm ${r.action} of release ${r.release} has been running for ${elapsed} ` +
    `(timeout ${formatDuration(r.timeoutMs)}); hooks or waits are holding a worker`
  );
}

export interface SlowHelmOptions {
  /** helm's `--timeout` for every run that does not set its own. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Called once per run still going after stillRunningAfterMs(timeoutMs); the run waits for it before it returns. */
  readonly onStillRunning: (run: StillRunning) => Promise<void>;
}

/** The middleware that gives every release command `timeoutMs` and reports each run that outlives its threshold. */
export function slowHelmNotice(o: SlowHelmOptions): HelmMiddleware {
  return {
    name: 'slow helm',
    async around(action, params, next) {
      if (action === 'version' || params.release === undefined) return next(params);
      const timeoutMs = params.timeoutMs ?? o.timeoutMs;
      const release = params.release;
      const started = o.clock.now();
      let notice: Promise<void> | undefined;
      const cancel = o.clock.setTimer(stillRunningAfterMs(timeoutMs), () => {
        const elapsedMs = o.clock.now() - started;
        notice = o.onStillRunning({ action, release, elapsedMs, timeoutMs }).catch(() => undefined);
      });
      try {
        return await next({ timeoutMs: o.timeoutMs, ...params });
      } finally {
        cancel();
        await notice; // its status write must land before the reconcile writes the outcome
      }
    },
  };
}

export interface ReleaseHelmOptions {
  readonly helm: HelmClient;
  /** The run whose CR gets the notice; its updater writes the still-running status, so that its final write follows. */
  readonly run: DraftRun;
  readonly timeoutMs: number;
  /** The timers of the still-running threshold. */
  readonly clock: Clock;
}

/** The CR's slow-helm middleware: its timeout on every run; a slow run is reported on the CR (event, status). */
export function crSlowHelm(o: Omit<ReleaseHelmOptions, 'helm'>): HelmMiddleware {
  return slowHelmNotice({
    timeoutMs: o.timeoutMs,
    clock: o.clock,
    async onStillRunning(run) {
      const message = stillRunningMessage(run);
      const { release, action, timeoutMs } = run;
      const r = o.run;
      r.log.info({ release, action, elapsedMs: Math.round(run.elapsedMs), timeoutMs }, 'Helm still running');
      r.note('Normal', HELM_STILL_RUNNING, message);
      try {
        await r.updater.writeNow((shown) => stillRunningStatus(shown, message, r.now()), r.signal);
      } catch (err) {
        r.log.warn({ release, err: errFields(err) }, 'Could not write the still-running status');
      }
    },
  });
}
