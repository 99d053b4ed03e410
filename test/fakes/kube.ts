// A scripted KubeClient for unit tests: LIST answers are queued by the test, and every WATCH becomes a FakeWatch
// that the test drives (emit events, end normally, fail). Records every list/watch call for assertions.
// Test-only; never talks to a cluster. Methods that are not scripted (get/create/...) reject.

import type {
  ApiResource,
  KubeClient,
  KubeObject,
  ListOptions,
  ListResult,
  WatchEvent,
  WatchOptions,
} from '../../src/kube/types.js';

export const configMaps: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

/** A ConfigMap with the given name and resourceVersion (namespace `default` unless given). */
export function configMap(name: string, resourceVersion: string, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    ...extra,
    metadata: { name, namespace: 'default', resourceVersion, ...extra.metadata },
  };
}

export function page(items: KubeObject[], resourceVersion: string, next?: string): ListResult {
  return { items, resourceVersion, ...(next === undefined ? {} : { continue: next }) };
}

/** One watch request as the fake server sees it. */
export class FakeWatch {
  #done = false;
  readonly #onEvent: (event: WatchEvent) => void;
  readonly #settle: (err?: unknown) => void;

  constructor(
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

export class FakeKubeClient implements KubeClient {
  readonly listCalls: ListOptions[] = [];
  readonly watches: FakeWatch[] = [];
  readonly #lists: Array<ListResult | Error> = [];
  readonly #listWaiters = new Set<() => void>();
  readonly #watchWaiters = new Set<() => void>();
  #taken = 0;

  /** Queues answers for the next LIST calls, in order; an Error is thrown by that call. */
  enqueueList(...answers: Array<ListResult | Error>): void {
    this.#lists.push(...answers);
    for (const wake of [...this.#listWaiters]) wake();
  }

  /** Resolves with the next watch the client opened that this method has not returned yet. */
  async nextWatch(): Promise<FakeWatch> {
    while (this.watches.length <= this.#taken) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#watchWaiters.delete(wake);
          resolve();
        };
        this.#watchWaiters.add(wake);
      });
    }
    const watch = this.watches[this.#taken++];
    if (watch === undefined) throw new Error('unreachable');
    return watch;
  }

  async list(_res: ApiResource, options: ListOptions): Promise<ListResult> {
    this.listCalls.push(options);
    while (this.#lists.length === 0) {
      options.signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          this.#listWaiters.delete(wake);
          reject(options.signal.reason);
        };
        const wake = () => {
          this.#listWaiters.delete(wake);
          options.signal.removeEventListener('abort', onAbort);
          resolve();
        };
        this.#listWaiters.add(wake);
        options.signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    const answer = this.#lists.shift();
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw new Error('unreachable');
    return answer;
  }

  watch(
    _res: ApiResource,
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      const settle = (err?: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (err === undefined) resolve();
        else reject(err);
      };
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      this.watches.push(new FakeWatch(options, signal, onEvent, settle));
      for (const wake of [...this.#watchWaiters]) wake();
    });
  }

  get(): Promise<KubeObject> {
    return notScripted('get');
  }
  create(): Promise<KubeObject> {
    return notScripted('create');
  }
  update(): Promise<KubeObject> {
    return notScripted('update');
  }
  updateStatus(): Promise<KubeObject> {
    return notScripted('updateStatus');
  }
  patch(): Promise<KubeObject> {
    return notScripted('patch');
  }
  delete(): Promise<void> {
    return notScripted('delete');
  }
  discover(): Promise<ApiResource> {
    return Promise.resolve(configMaps);
  }
  serverVersion(): Promise<never> {
    return notScripted('serverVersion');
  }
}

function notScripted(method: string): Promise<never> {
  return Promise.reject(new Error(`FakeKubeClient.${method} is not scripted`));
}
