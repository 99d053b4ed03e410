// Reconciles one custom resource against its Helm release, operator-sdk style, as a story of phases over one
// per-reconcile context (run.ts): read → deletion → finalizer → pause → inputs → helm step → settle. Each phase is one
// function in its room (inputs/, release/, status/, rollout/, deletion/); a feature plugs into a phase, not here.
// Called by the controller's workers with a "namespace/name" key. Never puts values in logs, events or errors.

import type { Outcome } from '../controller/contract.js';
import { readInputs } from './inputs/inputs.js';
import type { HelmReconcilerOptions } from './options.js';
import { releaseStep } from './release/step.js';
import type { RunStart } from './run.js';
import { settle } from './settle.js';
import { noteResumed, reconcilePaused } from './start/pause.js';
import { beginRun, readRun } from './start/read.js';
import { type WatchKit, watchKit } from './watch-kit.js';

export class HelmReconciler {
  readonly #kit: WatchKit;

  constructor(options: HelmReconcilerOptions) {
    this.#kit = watchKit(options);
  }

  /**
   * Reads what every reconcile of this watch shares before the first one needs it: the chart's digest (every file of
   * the chart read and hashed). The start-up warm-up calls it; a failure is left to the first reconcile to meet.
   */
  async prepare(signal: AbortSignal): Promise<void> {
    await this.#kit.chartDigest.get({ signal });
  }

  /**
   * The folder to render this watch's chart from before the first reconcile (the warm-up): the chart, or the copy
   * helm's CLI is handed when helm's library would leave out declared dependencies (inputs/loaded-chart.ts).
   */
  chartForRender(signal: AbortSignal): Promise<string> {
    return this.#kit.loadedChart.forRender({ signal });
  }

  /** `logger` (with the controller's reconcileID) replaces the constructor's logger for this reconcile. */
  async reconcile(key: string, signal: AbortSignal, logger: RunStart['log'] = this.#kit.logger): Promise<Outcome> {
    const kit = this.#kit;
    const start = await readRun(kit, key, signal, logger);
    if (!start) return {};
    // Deletion ignores the pause: the finalizer must never strand a CR.
    if (start.cr.metadata.deletionTimestamp) return kit.deletion.reconcile(start);
    const run = await beginRun(kit, start); // the finalizer before any helm action, written right away
    if (start.annotations.paused) return reconcilePaused(run);
    noteResumed(run);
    try {
      const inputs = await readInputs(run, kit);
      const step = await releaseStep(run, kit, inputs); // undefined: a release of another chart, left untouched
      return await settle(run, kit, inputs, step);
    } finally {
      await run.updater.apply(signal); // status first, then the finalizer; only what changed
    }
  }
}
