// One job of the uninstall queue: the asking CR's release and its members, held in the in-flight set while they
// run, each member's outcome settled once for its own pass to collect. Built by queue.ts only; never writes a CR and
// never runs an uninstall itself.

/** What a member's own pass learns: its release went (or had no record left), or it must run its uninstall alone. */
export type MemberOutcome = 'uninstalled' | 'not-found' | 'alone';

/** A member held by a job, until its own pass collects its outcome. */
export interface Held {
  readonly key: string;
  readonly uid: string | undefined;
  readonly namespace: string;
  readonly outcome: Promise<MemberOutcome>;
  readonly settled: boolean;
  /** Its uninstall has begun (a lane took it, or its helm process runs): its own pass can only wait for it. */
  readonly started: boolean;
}

interface HeldState extends Held {
  settled: boolean;
  started: boolean;
  job?: QueueJob;
  resolve: (o: MemberOutcome) => void;
}

export interface QueueJobOptions {
  /** The asking CR's key. */
  readonly key: string;
  /** The queue's held members by key. */
  readonly held: Map<string, Held>;
  readonly inFlight: Set<string>;
  readonly members: readonly Held[];
  /** Told +n as the job starts and -1 as each of its releases is done: the queue's count of work still running. */
  readonly running: (delta: number) => void;
  /** Called once, when the job ends. */
  readonly onEnd: () => void;
}

export class QueueJob {
  readonly #o: QueueJobOptions;
  #ownDone = false;
  #ownCounted = false;
  #ended = false;

  /** Holds `key` for a job: in `held` (its own pass waits for the outcome) and in the in-flight set. */
  static hold(held: Map<string, Held>, inFlight: Set<string>, key: string, uid: string | undefined): Held {
    let resolve: (o: MemberOutcome) => void = () => undefined;
    const outcome = new Promise<MemberOutcome>((r) => {
      resolve = r;
    });
    const state: HeldState = {
      key,
      uid,
      namespace: key.slice(0, key.lastIndexOf('/')),
      outcome,
      settled: false,
      started: false,
      resolve,
    };
    held.set(key, state);
    inFlight.add(key);
    return state;
  }

  /** Its uninstall begins: from now on its own pass waits for it. */
  static begin(h: Held): void {
    (h as HeldState).started = true;
  }

  /**
   * Its own pass has come before its job began its uninstall: the pass takes it back (it starts at once, as its own
   * request, rather than hold its worker idle), and the job skips it. False when it has begun or is settled.
   */
  static takeBack(held: Map<string, Held>, inFlight: Set<string>, h: Held): boolean {
    const state = h as HeldState;
    if (state.settled || state.started) return false;
    if (state.job) state.job.settle(h, 'alone');
    else QueueJob.letGo(held, inFlight, h);
    return true;
  }

  /** Lets a held key go untouched (the job did not take it): its own pass, if it waits, runs alone. */
  static letGo(held: Map<string, Held>, inFlight: Set<string>, h: Held): void {
    QueueJob.settleHeld(held, inFlight, h, 'alone');
  }

  /**
   * Settles `h` once: out of the in-flight set, its outcome given to its own pass. One left alone is let go at once
   * (a pass that waits for it has the outcome; a later one, or another job, finds it free).
   */
  static settleHeld(held: Map<string, Held>, inFlight: Set<string>, h: Held, outcome: MemberOutcome): boolean {
    const state = h as HeldState;
    if (state.settled) return false;
    state.settled = true;
    if (outcome === 'alone' && held.get(h.key) === h) held.delete(h.key);
    inFlight.delete(h.key);
    state.resolve(outcome);
    return true;
  }

  constructor(options: QueueJobOptions) {
    this.#o = options;
    for (const h of options.members) (h as HeldState).job = this;
    options.inFlight.add(options.key);
    options.running(options.members.length + 1);
  }

  /** A member is done (or is left to its own pass). */
  settle(h: Held, outcome: MemberOutcome): void {
    if (QueueJob.settleHeld(this.#o.held, this.#o.inFlight, h, outcome)) this.#o.running(-1);
  }

  /** The asking CR's own release is gone, though its helm process may go on with the members: no work left of it. */
  ownGone(): void {
    if (this.#ownCounted) return;
    this.#ownCounted = true;
    this.#o.running(-1);
  }

  /** The asking CR's own release is done: its key is free again. */
  ownDone(): void {
    if (this.#ownDone) return;
    this.#ownDone = true;
    this.#o.inFlight.delete(this.#o.key);
    this.ownGone();
  }

  /** The job is over: a member not settled yet is left to its own pass. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.ownDone();
    for (const h of this.#o.members) this.settle(h, 'alone');
    this.#o.onEnd();
  }
}
