// Collects one reconcile's status and finalizer changes and applies them together (helm-operator-plugins'
// updater.go): the status first, then the finalizer removal, each only when something changed. Created per
// reconcile by start/read.ts and deletion/deletion.ts; never decides what the status says (status.ts does).
// The CR may come from the informer's cache: a write that conflicts is redone once on the API server's copy.
import { withFinalizer, withoutFinalizers } from '../../finalizers/finalizers.js';
import { ConflictError } from '../../kube/errors.js';
import type { CrAccess, CustomResource, HelmAppStatus, StatusDraft } from '../types.js';
import { readStatus, sameStatus, withStatusWord } from './status.js';

export interface StatusUpdaterOptions {
  readonly crs: CrAccess;
  /** The CR as read at the start of the reconcile. */
  readonly cr: CustomResource;
}

export class StatusUpdater implements StatusDraft {
  readonly #crs: CrAccess;
  #cr: CustomResource;
  #shown: HelmAppStatus;
  #pending: HelmAppStatus | undefined;
  #removeFinalizers = false;
  #afterApply: (() => void)[] = [];
  #amendments: ((status: HelmAppStatus) => HelmAppStatus)[] = [];

  constructor(options: StatusUpdaterOptions) {
    this.#crs = options.crs;
    this.#cr = options.cr;
    this.#shown = readStatus(options.cr.status);
  }

  /** The CR as last read or written. */
  get cr(): CustomResource {
    return this.#cr;
  }

  /** What the CR's status shows now: the operator's part of it as read, or as last applied. */
  get shown(): HelmAppStatus {
    return this.#shown;
  }

  /**
   * Adds our finalizer when it is missing, right away rather than with apply(): it must be on the object before
   * the first helm action. The status shown is then read from the updated object.
   */
  async addFinalizer(signal: AbortSignal): Promise<void> {
    await this.#onLatest(signal, async () => {
      const finalizers = withFinalizer(this.#cr.metadata.finalizers);
      if (finalizers) this.#cr = await this.#crs.setFinalizers(this.#cr, finalizers, { signal });
    });
    this.#shown = readStatus(this.#cr.status);
  }

  /** The status to write at the next apply() (replaces any status set before). */
  setStatus(status: HelmAppStatus): void {
    this.#pending = status;
  }

  /**
   * Writes `change(shown)` at once (progress while helm runs, say), unless it equals what is shown; what setStatus,
   * removeFinalizers and afterApply queued stays queued for apply(). On a conflict, `change` is applied to the
   * API server's copy.
   */
  async writeNow(change: (shown: HelmAppStatus) => HelmAppStatus, signal: AbortSignal): Promise<void> {
    await this.#onLatest(signal, async () => {
      const status = withStatusWord(change(this.#shown));
      if (sameStatus(this.#shown, status)) return;
      this.#cr = await this.#crs.writeStatus(this.#cr, status, { signal });
      this.#shown = status;
    });
  }

  /**
   * Lays `change` over every status apply() writes from now on, whichever phase set it (what the inputs phase found
   * holds for the whole reconcile, success or failure).
   */
  amend(change: (status: HelmAppStatus) => HelmAppStatus): void {
    this.#amendments.push(change);
  }

  /** Runs `fn` once the next apply() has succeeded (e.g. an event that must not precede the status it reports). */
  afterApply(fn: () => void): void {
    this.#afterApply.push(fn);
  }

  /** Removes our finalizers at the next apply(), after the status is written. */
  removeFinalizers(): void {
    this.#removeFinalizers = true;
  }

  /**
   * Writes the pending status unless it equals the one shown (a CR without any status is always written), then
   * removes our finalizers if asked, then runs the afterApply() callbacks. What is applied is forgotten, so a second
   * call writes nothing; when a write fails, the callbacks are dropped.
   */
  async apply(signal: AbortSignal): Promise<void> {
    const callbacks = this.#afterApply;
    this.#afterApply = [];
    const status = this.#pending && withStatusWord(this.#amendments.reduce((s, change) => change(s), this.#pending));
    if (status !== undefined) {
      await this.#onLatest(signal, async () => {
        if (!sameStatus(this.#shown, status) || this.#cr.status === undefined) {
          this.#cr = await this.#crs.writeStatus(this.#cr, status, { signal });
        }
      });
      this.#pending = undefined;
      this.#shown = status;
    }
    if (this.#removeFinalizers) {
      this.#removeFinalizers = false;
      await this.#onLatest(signal, async () => {
        const remaining = withoutFinalizers(this.#cr.metadata.finalizers);
        if (remaining) this.#cr = await this.#crs.setFinalizers(this.#cr, remaining, { signal });
      });
    }
    for (const fn of callbacks) fn();
  }

  /**
   * Runs a write based on the CR held; when it conflicts (the copy was stale), re-reads the CR from the API server
   * and runs it once more, deciding again on the fresh copy. A CR gone by then ends it quietly.
   */
  async #onLatest(signal: AbortSignal, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (!(err instanceof ConflictError) || this.#crs.latest === undefined) throw err;
      const { namespace = '', name } = this.#cr.metadata;
      const fresh = await this.#crs.latest(namespace, name, { signal });
      if (fresh === undefined) return;
      this.#cr = fresh;
      this.#shown = readStatus(fresh.status);
      await write();
    }
  }
}
