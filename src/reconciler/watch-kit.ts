// What the reconciles of one watch share, built once from the reconciler's options: the parsed overrideValues, the
// chart digest memo, the folder handed to helm, the status-manifest memo, what releases put outside their
// namespaces, the adoption checks, and the deletion flow.
// Built by reconciler.ts' constructor; a bad override fails here, at startup, not at the first reconcile.

import { AdoptionQueue } from '../adoption/queue.js';
import { parseOverrides } from '../config/strvals.js';
import { OutsideObjectMemo } from '../ownership/orphans.js';
import { uninstallQueue } from '../uninstall/queue.js';
import { ReleaseDeletion } from './deletion/deletion.js';
import { ChartDigestMemo } from './inputs/chart-digest-memo.js';
import { LoadedChartMemo } from './inputs/loaded-chart.js';
import type { HelmReconcilerOptions } from './options.js';
import { OwnedManifestMemo } from './release/owned-manifest.js';
import { StatusReleaseMemo } from './status/status-manifest.js';
import type { AdoptionChecks, CustomResource, OutsideObjects } from './types.js';

export interface WatchKit extends HelmReconcilerOptions {
  readonly overrides: Record<string, unknown>;
  /** The chart's digest, shared by the reconciles of a few seconds (an idle reconcile reads no chart file). */
  readonly chartDigest: ChartDigestMemo;
  /** The folder handed to helm: the chart, or a copy without the dependencies helm's library does not load. */
  readonly loadedChart: LoadedChartMemo;
  /** status.deployedRelease per CR, built once per revision (redaction and the cap scan the whole manifest). */
  readonly statusRelease: StatusReleaseMemo;
  /** What each CR's release put outside its namespace, for a deletion that finds the release record gone. */
  readonly outside: OutsideObjects;
  readonly deletion: ReleaseDeletion;
  /** What the adoption checks found (the manager's queue, or a private one whose checks all run inline). */
  readonly adoption: AdoptionChecks;
  readonly adoptInBackground: boolean;
  /** The deployed manifest with the ownership marks, for drift repair (an adopted release's lacks them). */
  readonly owned: OwnedManifestMemo;
  /** Per CR, the pod cause (Ready's reason) last sent as an event, until Ready is True: one event per episode. */
  readonly podCauseEvents: Map<string, string>;
}

export function watchKit(options: HelmReconcilerOptions): WatchKit {
  const statusRelease = new StatusReleaseMemo(options.statusManifest);
  const outside = options.outside ?? new OutsideObjectMemo();
  const adoption = options.adoption ?? new AdoptionQueue({ signal: new AbortController().signal });
  const owned = new OwnedManifestMemo(options.ownedManifest);
  const uninstalls = options.uninstalls ?? uninstallQueue<CustomResource>({ inFlight: options.inFlight });
  const podCauseEvents = new Map<string, string>();
  const forget = (key: string) => {
    podCauseEvents.delete(key);
    outside.forget(key);
    adoption.forget(key);
    owned.forget(key);
    statusRelease.forget(key);
    options.dependents?.forget(key);
  };
  const chartDir = options.watch.chart;
  const chartDigest = new ChartDigestMemo({ chartDir, clock: options.clock });
  const stageDir = options.chartStageDir;
  return {
    ...options,
    overrides: parseOverrides(options.watch.overrideValues),
    chartDigest,
    loadedChart: new LoadedChartMemo({ chartDir, digest: chartDigest, stageDir, logger: options.logger }),
    statusRelease,
    outside,
    deletion: new ReleaseDeletion({ ...options, outside, forget, uninstalls }),
    adoption,
    podCauseEvents,
    adoptInBackground: options.adoption !== undefined,
    owned,
  };
}
