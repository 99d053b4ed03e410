// Shares one chart digest (fingerprint.ts' chartDigest) between the reconciles of a short window, so an idle
// reconcile does not read every file of the chart: a burst of reconciles waits on one computation, and the digest is
// reused for `ttlMs`, as long as the chart's Chart.yaml is still there (one stat: a chart folder removed under the
// operator shows at the next reconcile). Built by watch-kit.ts; read by the inputs phase and the chart rollout; never
// caches a failed read.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { untilAborted } from '../../core/abortable.js';
import type { Clock } from '../../core/clock.js';
import { chartDigest } from './fingerprint.js';

export interface ChartDigestMemoOptions {
  readonly chartDir: string;
  readonly clock: Clock;
  /** How long a digest is reused: a chart edited while the operator runs is seen that much later. @default 5000 */
  readonly ttlMs?: number;
  /** @default fingerprint.ts' chartDigest */
  readonly compute?: typeof chartDigest;
  /** Rejects when a reused digest no longer stands for a chart on disk. @default a stat of `<chartDir>/Chart.yaml` */
  readonly check?: (chartDir: string) => Promise<unknown>;
}

export class ChartDigestMemo {
  readonly #o: ChartDigestMemoOptions;
  #current: { readonly at: number; readonly digest: Promise<string> } | undefined;

  constructor(options: ChartDigestMemoOptions) {
    this.#o = options;
  }

  /**
   * The chart's digest, computed at most once per `ttlMs`, and not reused once the chart is gone (its read error is
   * thrown, and the next call reads the chart again). Rejects with `signal.reason` when aborted.
   */
  async get({ signal }: { signal: AbortSignal }): Promise<string> {
    signal.throwIfAborted();
    const now = this.#o.clock.now();
    const current = this.#current;
    if (current && now - current.at < (this.#o.ttlMs ?? 5000)) {
      try {
        await untilAborted((this.#o.check ?? chartYamlPresent)(this.#o.chartDir), signal);
      } catch (err) {
        if (this.#current === current && !signal.aborted) this.#current = undefined;
        throw err;
      }
      return untilAborted(current.digest, signal);
    }
    // Not tied to this caller's signal: other reconciles may wait on it too.
    const digest = (this.#o.compute ?? chartDigest)(this.#o.chartDir, { signal: AbortSignal.timeout(60_000) });
    const entry = { at: now, digest };
    this.#current = entry;
    digest.catch(() => {
      if (this.#current === entry) this.#current = undefined;
    });
    return untilAborted(digest, signal);
  }
}

function chartYamlPresent(chartDir: string): Promise<unknown> {
  return stat(join(chartDir, 'Chart.yaml'));
}
