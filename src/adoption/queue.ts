// The adoption checks of one watch: what each check found, per CR and deployed revision, and the checks that run in
// the background, a few at a time, so that a startup with many releases to adopt keeps the workers free for CRs with
// real changes; a finished check wakes its CR (the controller's enqueue). Built by the manager per watch, used by
// reconciler/release/adoption.ts through its AdoptionChecks port. In memory only; never runs helm itself (the check it is handed does), and never throws from a wake.

/** What a check found: the release is what would be rendered now, it differs (the first object), or it failed. */
export type Verdict =
  | { readonly kind: 'same' }
  | { readonly kind: 'differs'; readonly first: string }
  | { readonly kind: 'failed'; readonly error: unknown };

export interface AdoptionQueueOptions {
  /** Checks running at once in the background. @default 2 */
  readonly concurrency?: number;
  /** Ends the background checks (the operator's run). */
  readonly signal: AbortSignal;
}

interface Entry {
  /** `<revision>/<fingerprint>`: a check of another revision or other inputs is stale. */
  readonly ident: string;
  verdict?: Verdict;
  /** The release record got the fingerprint label (or its patch was given up): never adopted twice. */
  adopted?: boolean;
}

export class AdoptionQueue {
  readonly #max: number;
  readonly #signal: AbortSignal;
  readonly #entries = new Map<string, Entry>();
  /** Background checks waiting for a slot, in the order they were asked for. */
  readonly #waiting = new Map<string, { ident: string; check: (signal: AbortSignal) => Promise<Verdict> }>();
  #running = 0;
  #wake: (key: string) => void = () => {};

  constructor(options: AdoptionQueueOptions) {
    this.#max = options.concurrency ?? 2;
    if (!(Number.isSafeInteger(this.#max) && this.#max >= 1)) throw new RangeError('concurrency must be >= 1');
    this.#signal = options.signal;
  }

  /** Who reconciles a CR once its background check is done (the controller's enqueue). */
  onWake(wake: (key: string) => void): void {
    this.#wake = wake;
  }

  /** The verdict for this revision and these inputs, if a check found one; a failure is handed out once. */
  verdict(key: string, ident: string): Verdict | undefined {
    const e = this.#entries.get(key);
    if (e?.ident !== ident || !e.verdict) return undefined;
    if (e.verdict.kind === 'failed') this.#entries.delete(key); // the retry checks again
    return e.verdict;
  }

  /** Whether this revision was adopted already (its label written, or the write given up). */
  adopted(key: string, ident: string): boolean {
    const e = this.#entries.get(key);
    return e?.ident === ident && e.adopted === true;
  }

  /** Remembers a verdict found in the reconcile itself (a check run inline). */
  record(key: string, ident: string, verdict: Verdict): void {
    this.#entries.set(key, { ident, verdict });
  }

  markAdopted(key: string, ident: string): void {
    const e = this.#entries.get(key);
    if (e?.ident === ident) e.adopted = true;
    else this.#entries.set(key, { ident, verdict: { kind: 'same' }, adopted: true });
  }

  /** Whether a background check of this revision is waiting or running. */
  pending(key: string, ident: string): boolean {
    const e = this.#entries.get(key);
    return (e?.ident === ident && e.verdict === undefined) || this.#waiting.get(key)?.ident === ident;
  }

  /**
   * Runs `check` in the background when a slot is free (at once, or after the checks asked for before it), keeps
   * its verdict and wakes the CR. A check of the same revision already asked for is not asked twice.
   */
  schedule(key: string, ident: string, check: (signal: AbortSignal) => Promise<Verdict>): void {
    if (this.pending(key, ident)) return;
    this.#entries.set(key, { ident });
    this.#waiting.set(key, { ident, check });
    this.#drain();
  }

  /** The CR is gone. */
  forget(key: string): void {
    this.#entries.delete(key);
    this.#waiting.delete(key);
  }

  /** Checks waiting for a slot and running: for tests and logs. */
  get size(): { waiting: number; running: number } {
    return { waiting: this.#waiting.size, running: this.#running };
  }

  #drain(): void {
    while (this.#running < this.#max && this.#waiting.size > 0 && !this.#signal.aborted) {
      const [key, job] = this.#waiting.entries().next().value as [string, { ident: string; check: Check }];
      this.#waiting.delete(key);
      this.#running++;
      void this.#run(key, job.ident, job.check);
    }
  }

  async #run(key: string, ident: string, check: Check): Promise<void> {
    let verdict: Verdict;
    try {
      verdict = await check(this.#signal);
    } catch (error) {
      verdict = { kind: 'failed', error };
    }
    this.#running--;
    const e = this.#entries.get(key);
    if (e?.ident === ident && !this.#signal.aborted) {
      e.verdict = verdict;
      try {
        this.#wake(key);
      } catch {
        // a wake must not stop the queue; the periodic reconcile comes anyway
      }
    }
    this.#drain();
  }
}

type Check = (signal: AbortSignal) => Promise<Verdict>;
