// The chart folder a watch hands helm. Usually the chart itself; but when helm's library would leave out declared
// dependencies (no such subchart in charts/, or `.helmignore` leaves it out), which operator-sdk's in-process helm
// renders without while helm's CLI refuses the chart, a staged copy of the chart as the library loads it, whose
// Chart.yaml (or requirements.yaml) no longer declares them. Worked out once per chart digest; built by watch-kit.ts, read
// by the helm step and the warm-up. Never writes into the chart; a chart it cannot read as helm does goes as it is.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeclaredDependency } from '../../config/chart-dependencies.js';
import { chartAsLoaded } from '../../config/chart-load.js';
import { untilAborted } from '../../core/abortable.js';
import { errFields } from '../../core/error-fields.js';
import type { Logger } from '../../core/logger.js';
import type { ChartDigestMemo } from './chart-digest-memo.js';
import { removeStaged, stageChart } from './chart-stage.js';

export interface HelmChart {
  /** The folder to hand helm. */
  readonly path: string;
  /** The declared dependencies left out (none: `path` is the chart itself). */
  readonly dropped: readonly DeclaredDependency[];
  /** What `.helmignore` leaves out of charts/, which may be why. */
  readonly ignoredInCharts: readonly string[];
}

export interface LoadedChartMemoOptions {
  readonly chartDir: string;
  readonly digest: Pick<ChartDigestMemo, 'get'>;
  /** Where staged copies go. @default `<tmpdir>/helm-operator-charts` */
  readonly stageDir?: string | undefined;
  readonly logger: Logger;
  /** @default config/chart-load.ts' chartAsLoaded */
  readonly load?: typeof chartAsLoaded;
}

/** Staged copies kept: the current one, and the one before for a helm that was handed it just before a change. */
const KEEP_STAGED = 2;

export class LoadedChartMemo {
  readonly #o: LoadedChartMemoOptions;
  #current: { readonly digest: string; readonly chart: Promise<HelmChart> } | undefined;
  readonly #staged: string[] = [];
  /** Results of a copy that could not be written: handed out once, then worked out again. */
  readonly #unstaged = new WeakSet<HelmChart>();

  constructor(options: LoadedChartMemoOptions) {
    this.#o = options;
  }

  /** The folder for helm at the chart's current digest. Rejects with `signal.reason` when aborted. */
  async get({ signal }: { signal: AbortSignal }): Promise<HelmChart> {
    const digest = await this.#o.digest.get({ signal });
    let current = this.#current;
    if (current?.digest !== digest) {
      // Not tied to this caller's signal: other reconciles may wait on it too.
      current = { digest, chart: this.#load(AbortSignal.timeout(60_000)) };
      this.#current = current;
      const entry = current;
      const forget = () => {
        if (this.#current === entry) this.#current = undefined;
      };
      entry.chart.then((chart) => this.#unstaged.has(chart) && forget(), forget);
    }
    return untilAborted(current.chart, signal);
  }

  /**
   * The folder for a render before the first reconcile (the warm-up): the chart itself at once when helm's library
   * loads all it declares, without waiting for the chart's digest.
   */
  async forRender({ signal }: { signal: AbortSignal }): Promise<string> {
    const loaded = await (this.#o.load ?? chartAsLoaded)(this.#o.chartDir, signal).catch(() => undefined);
    if (!loaded || loaded.missing.length === 0) return this.#o.chartDir;
    return (await this.get({ signal })).path;
  }

  async #load(signal: AbortSignal): Promise<HelmChart> {
    const { chartDir, logger } = this.#o;
    const asIs: HelmChart = { path: chartDir, dropped: [], ignoredInCharts: [] };
    let loaded: Awaited<ReturnType<typeof chartAsLoaded>>;
    try {
      loaded = await (this.#o.load ?? chartAsLoaded)(chartDir, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      // helm will say what is wrong with it.
      logger.debug(
        { chart: chartDir, err: errFields(err) },
        'Chart not read as helm loads it; handed to helm as it is',
      );
      return asIs;
    }
    if (loaded.missing.length === 0) return asIs;
    const stageDir = this.#o.stageDir ?? join(tmpdir(), 'helm-operator-charts');
    let path: string;
    try {
      path = await stageChart({ chartDir, files: loaded.files, edits: loaded.edits, stageDir, signal });
    } catch (err) {
      if (signal.aborted) throw err;
      logger.warn(
        { chart: chartDir, stageDir, err: errFields(err) },
        'Cannot stage the chart; handed to helm as it is',
      );
      const unstaged = { ...asIs };
      this.#unstaged.add(unstaged);
      return unstaged;
    }
    this.#staged.push(path);
    for (const old of this.#staged.splice(0, Math.max(0, this.#staged.length - KEEP_STAGED))) await removeStaged(old);
    const dropped = loaded.missing.map((d) => d.name);
    logger.info({ chart: chartDir, dropped, staged: path }, 'Chart dependencies not loaded by helm: rendered without');
    return { path, dropped: loaded.missing, ignoredInCharts: loaded.ignoredInCharts };
  }
}

/**
 * The DependencyDropped event's message: which declared dependencies the release is rendered without, where they
 * are declared, and the likely reason. Names only, never values.
 */
export function droppedMessage(chart: HelmChart): string {
  const { dropped, ignoredInCharts } = chart;
  const one = dropped.length === 1;
  const names = dropped.map((d) => `"${d.name}"${d.version ? ` ${d.version}` : ''}`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  const files = [...new Set(dropped.map((d) => d.file))].join(' and ');
  const why =
    ignoredInCharts.length > 0
      ? `.helmignore leaves out ${ignoredInCharts.map((p) => (p === 'charts' ? 'charts/' : p)).join(', ')}`
      : `charts/ holds no subchart of ${one ? 'that name' : 'those names'}`;
  return (
    `Chart ${one ? 'dependency' : 'dependencies'} ${list} (declared in ${files}) ${one ? 'is' : 'are'} not part of ` +
    `the chart as helm's library loads it (${why}): the release is rendered without ${one ? 'it' : 'them'}, as ` +
    "operator-sdk's helm-operator does"
  );
}
