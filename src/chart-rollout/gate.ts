// The chart rollout gate of one watch: upgrades that a new chart (not a CR's own values) causes go one canary first,
// then at most `maxConcurrent` at a time, and halt once more than `maxFailures` of them failed. In memory only (a
// restart starts the rollout again). Built by the manager per watch; the reconciler
// asks it through its ChartRollout port (reconciler/rollout/step.ts). Never runs helm itself.
import type { Logger } from '../core/logger.js';

/** Why a CR's chart-driven upgrade is held, for its ChartRollout condition and its event. */
export interface RolloutHold {
  readonly reason: 'Waiting' | 'Halted';
  readonly message: string;
  /** Reconcile again after this long (a fallback: a freed slot wakes the CR). Absent: the usual period. */
  readonly retryAfterMs?: number;
}

/** How one chart-driven upgrade ended, as the gate counts it. */
export type RolloutResult = 'success' | 'failure' | 'aborted';

/** Where the gate reports its progress (OperatorMetrics implements it); must not throw. */
export interface ChartRolloutMetrics {
  chartRollout(controller: string, counts: { pending: number; upgraded: number; failed: number }): void;
}

export interface ChartRolloutOptions {
  /** `<kind>-controller`: the metrics' label. */
  readonly controller: string;
  /** Chart-driven upgrades running at once once the canary succeeded. @default 2 */
  readonly maxConcurrent?: number;
  /** Failed chart-driven upgrades tolerated; one more halts the rollout. @default 0 */
  readonly maxFailures?: number;
  /** How long a waiting CR waits before it looks again by itself. @default 5000 */
  readonly waitRetryMs?: number;
  readonly metrics?: ChartRolloutMetrics | undefined;
  /** The controller's logger. */
  readonly logger: Logger;
}

/** What `admit` answers: run now (then call `done` exactly once), or the hold. */
export type Admission = { readonly done: (result: RolloutResult) => void } | { readonly hold: RolloutHold };

/** The state of the rollout of one chart digest. */
interface Rollout {
  readonly digest: string;
  canary: string | undefined;
  canaryOk: boolean;
  readonly running: Set<string>;
  readonly upgraded: Set<string>;
  /** Failed and not upgraded since, in order of failure. */
  readonly failed: Set<string>;
  /** CRs held, in the order they first asked (the wake order). */
  readonly held: Map<string, RolloutHold['reason']>;
}

export class ChartRolloutGate {
  readonly #o: ChartRolloutOptions;
  readonly #max: number;
  readonly #maxFailures: number;
  #rollout: Rollout | undefined;
  #wake: (key: string) => void = () => {};

  constructor(options: ChartRolloutOptions) {
    this.#o = options;
    this.#max = options.maxConcurrent ?? 2;
    this.#maxFailures = options.maxFailures ?? 0;
    if (!(Number.isSafeInteger(this.#max) && this.#max >= 1)) throw new RangeError('maxConcurrent must be >= 1');
    if (!(Number.isSafeInteger(this.#maxFailures) && this.#maxFailures >= 0)) {
      throw new RangeError('maxFailures must be >= 0');
    }
  }

  /** Who reconciles a held CR at once when it may go (the controller's enqueue). */
  onWake(wake: (key: string) => void): void {
    this.#wake = wake;
  }

  /** Asks to run the chart-driven upgrade of CR `key` to the chart `digest`. */
  admit(key: string, digest: string): Admission {
    const r = this.#current(digest);
    const hold = this.#holdOf(r, key);
    if (hold) {
      r.held.set(key, hold.reason);
      this.#report(r);
      return { hold };
    }
    r.held.delete(key);
    r.running.add(key);
    if (r.canary === undefined && !r.canaryOk) r.canary = key;
    const role = r.canary === key ? 'canary' : 'follower';
    this.#log(r).info({ key, role, running: r.running.size }, 'Chart rollout: upgrading');
    this.#report(r);
    let settled = false;
    return {
      done: (result) => {
        if (settled) return;
        settled = true;
        this.#done(r, key, result);
      },
    };
  }

  /** The CR's upgrade was not chart-driven (its own values changed), or it needs none: it is not held. */
  pass(key: string): void {
    const r = this.#rollout;
    if (r?.held.delete(key)) this.#report(r);
  }

  /** The CR is gone: drop it from the counts. */
  forget(key: string): void {
    const r = this.#rollout;
    if (!r) return;
    const had = r.held.delete(key) || r.upgraded.delete(key) || r.failed.delete(key);
    if (had) this.#report(r);
  }

  /** A new digest starts a new rollout; what the old one counted is dropped. */
  #current(digest: string): Rollout {
    if (this.#rollout?.digest === digest) return this.#rollout;
    const r: Rollout = {
      digest,
      canary: undefined,
      canaryOk: false,
      running: new Set(),
      upgraded: new Set(),
      failed: new Set(),
      held: new Map(),
    };
    this.#rollout = r;
    this.#log(r).info({ maxConcurrent: this.#max, maxFailures: this.#maxFailures }, 'Chart rollout: started');
    return r;
  }

  #halted(r: Rollout): boolean {
    return r.failed.size > this.#maxFailures;
  }

  #holdOf(r: Rollout, key: string): RolloutHold | undefined {
    const chart = `Chart rollout to ${shortDigest(r.digest)}`;
    // A CR whose own rollout upgrade failed keeps retrying on its backoff: its success may lift the halt.
    if (this.#halted(r) && !r.failed.has(key)) {
      const first = [...r.failed][0] ?? '';
      const who = first === r.canary || !r.canaryOk ? `the canary ${first}` : first;
      return {
        reason: 'Halted',
        message: `${chart} halted: the upgrade of ${who} failed (${r.failed.size} failed, at most ${this.#maxFailures} tolerated); this CR stays on its release until the operator runs another chart`,
      };
    }
    const retryAfterMs = this.#o.waitRetryMs ?? 5000;
    if (!r.canaryOk && r.canary !== undefined && r.canary !== key) {
      return {
        reason: 'Waiting',
        message: `${chart}: waiting for the canary ${r.canary} to upgrade first`,
        retryAfterMs,
      };
    }
    if (!r.canaryOk && r.canary === undefined && r.running.size > 0) {
      return { reason: 'Waiting', message: `${chart}: waiting for a canary to upgrade first`, retryAfterMs };
    }
    if (r.running.size >= this.#max) {
      const canary = r.canary ?? 'the canary';
      return {
        reason: 'Waiting',
        message: `${chart}: waiting for a free upgrade slot (at most ${this.#max} at once; ${canary} upgraded first)`,
        retryAfterMs,
      };
    }
    return undefined;
  }

  #done(r: Rollout, key: string, result: RolloutResult): void {
    r.running.delete(key);
    const wasHalted = this.#halted(r);
    const canary = r.canary === key;
    if (result === 'success') {
      r.failed.delete(key);
      r.upgraded.add(key);
      if (canary || !r.canaryOk) {
        r.canaryOk = true;
        r.canary = key;
      }
    } else if (result === 'failure') {
      r.upgraded.delete(key);
      r.failed.add(key);
      if (canary && !r.canaryOk) r.canary = undefined;
    } else if (canary && !r.canaryOk) {
      r.canary = undefined; // aborted (shutdown, lost shard): another CR, or this one again, goes first
    }
    const log = this.#log(r);
    const counts = { key, upgraded: r.upgraded.size, failed: r.failed.size, waiting: r.held.size };
    if (result === 'success') log.info({ ...counts, role: canary ? 'canary' : 'follower' }, 'Chart rollout: upgraded');
    else if (result === 'failure') log.warn(counts, 'Chart rollout: upgrade failed');
    else log.info(counts, 'Chart rollout: upgrade aborted');
    const halted = this.#halted(r);
    if (halted && !wasHalted) log.warn({ ...counts, maxFailures: this.#maxFailures }, 'Chart rollout: halted');
    if (!halted && wasHalted) log.info(counts, 'Chart rollout: resumed');
    this.#report(r);
    if (r === this.#rollout) this.#wakeHeld(r, halted && !wasHalted);
  }

  /** Wakes as many held CRs as may go now; all of them when the rollout just halted (to show them why). */
  #wakeHeld(r: Rollout, all: boolean): void {
    let free = this.#halted(r) ? 0 : r.canaryOk ? this.#max - r.running.size : r.running.size === 0 ? 1 : 0;
    for (const key of r.held.keys()) {
      if (!all && free-- <= 0) break;
      this.#wake(key);
    }
  }

  #report(r: Rollout): void {
    if (r !== this.#rollout) return;
    const counts = { pending: r.held.size, upgraded: r.upgraded.size, failed: r.failed.size };
    this.#o.metrics?.chartRollout(this.#o.controller, counts);
  }

  #log(r: Rollout): Logger {
    return this.#o.logger.child({ chartDigest: r.digest });
  }
}

/** `sha256:` and the first 12 hex digits: enough to tell two charts apart in a message. */
export function shortDigest(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice(0, 19) : digest.slice(0, 12);
}
