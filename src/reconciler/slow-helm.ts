// The helm client of one CR's reconcile: every install, upgrade, uninstall and rollback gets the CR's helm
// `--timeout`, and a run still going after stillRunningAfterMs(timeout) is made visible once per run: a Normal
// HelmStillRunning event, Reconciling=True/HelmStillRunning in the status and a log line. Built per reconcile by
// HelmReconciler and the deletion flow. A notice never fails a helm call; the call waits for its status write only.
import { formatDuration } from '../config/duration.js';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { HelmClient } from '../helm/cli.js';
import { stillRunningAfterMs } from '../helm/timeout.js';
import { stillRunningStatus } from './status.js';
import type { CustomResource, EventSink } from './types.js';
import type { StatusUpdater } from './updater.js';

/** The event reason and the Reconciling condition's reason. */
export const HELM_STILL_RUNNING = 'HelmStillRunning';

/** One helm run that has been going longer than its threshold. */
export interface StillRunning {
  readonly action: 'install' | 'upgrade' | 'uninstall' | 'rollback';
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

export interface TimedHelmOptions {
  readonly helm: HelmClient;
  /** helm's `--timeout` for every run that does not set its own. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Called once per run still going after stillRunningAfterMs(timeoutMs); the run waits for it before it returns. */
  readonly onStillRunning: (run: StillRunning) => Promise<void>;
}

/** `helm` with `timeoutMs` on every release command, reporting each run that outlives its threshold. */
export function timedReleaseHelm(o: TimedHelmOptions): HelmClient {
  const run = async <T>(
    action: StillRunning['action'],
    p: { release: string; timeoutMs?: number },
    call: () => Promise<T>,
  ) => {
    const timeoutMs = p.timeoutMs ?? o.timeoutMs;
    const started = o.clock.now();
    let notice: Promise<void> | undefined;
    const cancel = o.clock.setTimer(stillRunningAfterMs(timeoutMs), () => {
      const elapsedMs = o.clock.now() - started;
      notice = o.onStillRunning({ action, release: p.release, elapsedMs, timeoutMs }).catch(() => undefined);
    });
    try {
      return await call();
    } finally {
      cancel();
      await notice; // its status write must land before the reconcile writes the outcome
    }
  };
  const t = { timeoutMs: o.timeoutMs };
  return {
    version: (call) => o.helm.version(call),
    install: (p) => run('install', p, () => o.helm.install({ ...t, ...p })),
    upgrade: (p) => run('upgrade', p, () => o.helm.upgrade({ ...t, ...p })),
    uninstall: (p) => run('uninstall', p, () => o.helm.uninstall({ ...t, ...p })),
    rollback: (p) => run('rollback', p, () => o.helm.rollback({ ...t, ...p })),
  };
}

export interface ReleaseHelmOptions {
  readonly helm: HelmClient;
  readonly cr: CustomResource;
  readonly timeoutMs: number;
  /** The reconcile's updater: the still-running status goes through it, so that its final write follows. */
  readonly updater: StatusUpdater;
  readonly events: EventSink;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/** The CR's helm for one reconcile: its timeout on every run; a slow run is reported on the CR (event, status). */
export function releaseHelm(o: ReleaseHelmOptions): HelmClient {
  return timedReleaseHelm({
    helm: o.helm,
    timeoutMs: o.timeoutMs,
    clock: o.clock,
    async onStillRunning(run) {
      const message = stillRunningMessage(run);
      const { release, action, timeoutMs } = run;
      o.log.info({ release, action, elapsedMs: Math.round(run.elapsedMs), timeoutMs }, 'Helm still running');
      o.events.event(o.cr, 'Normal', HELM_STILL_RUNNING, message);
      try {
        await o.updater.writeNow((shown) => stillRunningStatus(shown, message, o.clock.now()), o.signal);
      } catch (err) {
        o.log.warn({ release, err: errFields(err) }, 'Could not write the still-running status');
      }
    },
  });
}
