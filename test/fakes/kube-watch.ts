// One WATCH request as test/fakes/kube-api.ts serves it: the fake delivers store changes through it, and a test
// can drive it by hand (emit events, end normally, fail), as an informer test needs.
// Test-only; never talks to a cluster.
import type { ApiResource, KubeObject, WatchEvent, WatchOptions } from '../../src/kube/types.js';

export class FakeWatch {
  #done = false;
  readonly #onEvent: (event: WatchEvent) => void;
  readonly #settle: (err?: unknown) => void;

  constructor(
    readonly res: ApiResource,
    readonly options: WatchOptions,
    readonly signal: AbortSignal,
    onEvent: (event: WatchEvent) => void,
    settle: (err?: unknown) => void,
  ) {
    this.#onEvent = onEvent;
    this.#settle = settle;
  }

  /** True once the watch ended (normally, with an error, or because the client aborted it). */
  get done(): boolean {
    return this.#done || this.signal.aborted;
  }

  emit(event: WatchEvent): void {
    if (this.done) throw new Error('FakeWatch: emit after the watch ended');
    this.#onEvent(event);
  }

  added(obj: KubeObject): void {
    this.emit({ type: 'ADDED', object: obj });
  }

  modified(obj: KubeObject): void {
    this.emit({ type: 'MODIFIED', object: obj });
  }

  deleted(obj: KubeObject): void {
    this.emit({ type: 'DELETED', object: obj });
  }

  bookmark(resourceVersion: string): void {
    this.emit({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion } } });
  }

  /** The server ends the watch normally (e.g. its timeoutSeconds elapsed). */
  end(): void {
    this.#done = true;
    this.#settle();
  }

  /** The request or stream fails with `err` (e.g. a GoneError for HTTP 410, or a transport error). */
  fail(err: unknown): void {
    this.#done = true;
    this.#settle(err);
  }
}
