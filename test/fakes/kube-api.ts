// The one in-memory kube API for unit tests: a KubeClient over KubeStore (objects with incrementing
// resourceVersions, GET/LIST/CREATE/UPDATE/PATCH/DELETE/updateStatus, 404/409, finalizers, dry runs), discovery of
// served kinds, WATCH streams fed by store changes or driven by the test, scripted LIST pages, reactors, hooks,
// injected errors per verb/object, a write gate and a record of every call. Test-only; never talks to a cluster.
import { untilAborted } from '../../src/core/abortable.js';
import { AlreadyExistsError, NotFoundError } from '../../src/kube/errors.js';
import type {
  ApiResource,
  DeleteOptions,
  GroupVersionKind,
  KubeClient,
  KubeObject,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  RequestOptions,
  ServerVersion,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../../src/kube/types.js';
import { type CallMatch, type KubeCall, matches, type Reactor, type Verb, WRITES } from './kube-calls.js';
import { applyPatch, jsonPatch, mergePatch } from './kube-merge.js';
import { COMMON_RESOURCES, keyOf, resourceFor } from './kube-resources.js';
import { ListScript } from './kube-script.js';
import { KubeStore, type KubeStoreOptions } from './kube-store.js';
import { FakeWatch } from './kube-watch.js';

export type { CallMatch, KubeCall, Reactor, Verb } from './kube-calls.js';
export * from './kube-resources.js';
export { FakeWatch } from './kube-watch.js';

export interface FakeKubeApiOptions extends KubeStoreOptions {
  /** The kinds discovery serves (and `put` infers resources from). @default COMMON_RESOURCES */
  readonly served?: readonly ApiResource[];
  /** Objects stored at the start (see `put`). */
  readonly objects?: readonly KubeObject[];
  /** LIST answers only what the test enqueues (waiting for it), as informer tests need. @default false */
  readonly scriptedLists?: boolean;
  readonly serverVersion?: ServerVersion;
}

export class FakeKubeApi implements KubeClient {
  readonly calls: KubeCall[] = [];
  /** While set, every call fails with it (the API server is down). */
  down: Error | undefined;
  /** While set, writes wait for it (abortably) after the injected-error check. */
  gate: Promise<void> | undefined;
  readonly #served: readonly ApiResource[];
  readonly #opts: FakeKubeApiOptions;
  readonly #reactors: Array<{ match: CallMatch; react: Reactor; times: number }> = [];
  readonly #hooks: Array<{ when: 'before' | 'after'; match: CallMatch; fn: (call: KubeCall) => void }> = [];
  readonly #script = new ListScript();
  readonly #store: KubeStore;
  #taken = 0;

  constructor(options: FakeKubeApiOptions = {}) {
    this.#opts = options;
    this.#served = options.served ?? COMMON_RESOURCES;
    this.#store = new KubeStore(this.#served, options);
    for (const o of options.objects ?? []) this.put(o);
  }

  /** The store, by `keyOf()`; tests may read it or change it behind the server's back. */
  get objects(): Map<string, KubeObject> {
    return this.#store.objects;
  }

  /** Every watch the client opened, in order. */
  get watches(): readonly FakeWatch[] {
    return this.#store.watches;
  }

  // --- setting up -------------------------------------------------------------------------------------------------

  /**
   * Stores `obj` behind the server's back: it keeps a resourceVersion it carries (later ones count on from it),
   * else gets a new one (unless stamping is off). `res` defaults to the served kind of the object.
   */
  put(obj: KubeObject, res: ApiResource = resourceFor(this.#served, obj)): KubeObject {
    return this.#store.put(obj, res);
  }

  /** Stores a bare object of kind `res` (no resourceVersion), as the old object-server fake did. */
  add(res: ApiResource, namespace: string, name: string, metadata: KubeObject['metadata'] = {}): void {
    const apiVersion = res.group === '' ? res.version : `${res.group}/${res.version}`;
    const meta = { ...metadata, name, ...(res.namespaced ? { namespace } : {}) };
    this.objects.set(keyOf(res, namespace, name), { apiVersion, kind: res.kind, metadata: meta });
  }

  /** The stored object (a copy), or undefined. */
  object(res: ApiResource, namespace: string, name: string): KubeObject | undefined {
    const obj = this.objects.get(keyOf(res, namespace, name));
    return obj === undefined ? undefined : structuredClone(obj);
  }

  /** Answers matching calls with `react` (`times` of them, default all) before the store and the error rules. */
  react(match: CallMatch, react: Reactor, times = Number.POSITIVE_INFINITY): void {
    this.#reactors.push({ match, react, times });
  }

  /** Fails matching calls with `error` (`times` of them, default all); earlier rules win. */
  failOn(match: CallMatch, error: Error, times = Number.POSITIVE_INFINITY): void {
    this.react(
      match,
      () => {
        throw error;
      },
      times,
    );
  }

  /** Fails the next write (of any kind) with each error, in order. */
  failNextWrites(...errors: Error[]): void {
    for (const e of errors) this.failOn({ verb: WRITES }, e, 1);
  }

  /** Runs `fn` before (or after a successful answer to) every matching call. */
  on(when: 'before' | 'after', match: CallMatch, fn: (call: KubeCall) => void): void {
    this.#hooks.push({ when, match, fn });
  }

  /** Queues answers for the next LIST calls, in order; an Error is thrown by that call. */
  enqueueList(...answers: Array<ListResult | Error>): void {
    this.#script.enqueue(answers);
  }

  /** Resolves with the next watch the client opened that this method has not returned yet. */
  async nextWatch(): Promise<FakeWatch> {
    while (this.watches.length <= this.#taken) await new Promise<void>((resolve) => this.#script.waitOnce(resolve));
    const watch = this.watches[this.#taken++];
    if (watch === undefined) throw new Error('unreachable');
    return watch;
  }

  /** The options of every LIST call, in order. */
  get listCalls(): ListOptions[] {
    return this.calls.filter((c) => c.verb === 'list').map((c) => c.options as ListOptions);
  }

  /** Calls with the given verb(s) (and, optionally, more of a CallMatch). */
  callsOf(verb: Verb | readonly Verb[], more: Omit<CallMatch, 'verb'> = {}): KubeCall[] {
    return this.calls.filter((c) => matches({ ...more, verb }, c));
  }

  /** The store keys of the calls with the given verb, in order. */
  keysOf(verb: Verb): string[] {
    return this.callsOf(verb).map((c) => c.key);
  }

  /** Writes that succeeded (dry runs excluded). */
  get writes(): number {
    return this.calls.filter((c) => WRITES.includes(c.verb) && c.done && c.error === undefined && !c.dryRun).length;
  }

  // --- KubeClient -------------------------------------------------------------------------------------------------

  get(res: ApiResource, namespace: string, name: string, options: RequestOptions): Promise<KubeObject> {
    return this.#serve({ verb: 'get', res, namespace, name, options }, options.signal, () => {
      return structuredClone(this.#store.existing(res, namespace, name));
    });
  }

  list(res: ApiResource, options: ListOptions): Promise<ListResult> {
    const namespace = options.namespace ?? '';
    return this.#serve({ verb: 'list', res, namespace, name: '', options }, options.signal, async () => {
      if (this.#opts.scriptedLists === true || this.#script.pending) return this.#script.next(options.signal);
      const items = this.#store.items(res, namespace, options.labelSelector);
      const from = Number(options.continue ?? '0');
      const to = options.limit === undefined ? items.length : from + options.limit;
      const rest = to < items.length ? { continue: String(to) } : {};
      return { items: items.slice(from, to), resourceVersion: this.#store.resourceVersion, ...rest };
    });
  }

  create(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? `${obj.metadata.generateName ?? ''}${this.calls.length + 1}`;
    return this.#serve({ verb: 'create', res, namespace, name, body: obj, options }, options.signal, () => {
      if (this.objects.has(keyOf(res, namespace, name)))
        throw new AlreadyExistsError({ status: 409, reason: 'AlreadyExists', serverMessage: `${name} exists` });
      return this.#store.write(res, { ...obj, metadata: { ...obj.metadata, name } }, options.dryRun);
    });
  }

  update(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    return this.#serve({ verb: 'update', res, namespace, name, body: obj, options }, options.signal, () => {
      this.#store.precondition(this.#store.existing(res, namespace, name), obj.metadata.resourceVersion);
      return this.#store.write(res, obj, options.dryRun);
    });
  }

  updateStatus(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    return this.#serve({ verb: 'updateStatus', res, namespace, name, body: obj, options }, options.signal, () => {
      const cur = this.#store.existing(res, namespace, name);
      this.#store.precondition(cur, obj.metadata.resourceVersion);
      return this.#store.write(res, { ...cur, status: structuredClone(obj.status) }, options.dryRun);
    });
  }

  patch(res: ApiResource, namespace: string, name: string, body: unknown, type: PatchType, options: PatchOptions) {
    const call = { verb: 'patch' as const, res, namespace, name, body, patchType: type, options };
    return this.#serve(call, options.signal, () => {
      const key = keyOf(res, namespace, name);
      const cur = this.objects.get(key);
      if (cur === undefined && type !== 'apply') throw new NotFoundError({ status: 404, operation: `PATCH ${key}` });
      const rv = (body as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
      if (cur !== undefined && type !== 'apply') this.#store.precondition(cur, rv);
      const base = cur ?? {};
      const target = options.subresource === 'status' ? { status: (base as KubeObject).status } : base;
      const patched =
        type === 'apply'
          ? applyPatch(target, body)
          : type === 'json'
            ? jsonPatch(target, body as Parameters<typeof jsonPatch>[1])
            : mergePatch(target, body);
      const next = options.subresource === 'status' ? { ...base, status: (patched as KubeObject).status } : patched;
      return this.#store.write(res, next as KubeObject, options.dryRun);
    });
  }

  delete(res: ApiResource, namespace: string, name: string, options: DeleteOptions): Promise<void> {
    return this.#serve({ verb: 'delete', res, namespace, name, options }, options.signal, () =>
      this.#store.delete(res, namespace, name),
    );
  }

  watch(res: ApiResource, options: WatchOptions, onEvent: (e: WatchEvent) => void, signal: AbortSignal) {
    const namespace = options.namespace ?? '';
    const call = { verb: 'watch' as const, res, namespace, name: '', options };
    return this.#serve(call, signal, () => {
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = (err?: unknown) => {
          signal.removeEventListener('abort', onAbort);
          if (err === undefined) resolve();
          else reject(err);
        };
        this.#store.watch(new FakeWatch(res, options, signal, onEvent, settle), this.#opts.scriptedLists !== true);
        this.#script.wake();
      });
    });
  }

  discover(gvk: GroupVersionKind, options: RequestOptions): Promise<ApiResource> {
    const res = this.#served.find((r) => r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind);
    return this.#serve({ verb: 'discover', gvk, namespace: '', name: '', options }, options.signal, () => {
      if (res === undefined)
        throw new NotFoundError({ status: 404, serverMessage: `no kind ${gvk.kind} in ${gvk.group}` });
      return res;
    });
  }

  serverVersion(options: RequestOptions): Promise<ServerVersion> {
    return this.#serve({ verb: 'serverVersion', namespace: '', name: '', options }, options.signal, () => {
      if (this.#opts.serverVersion === undefined) throw new Error('FakeKubeApi.serverVersion is not scripted');
      return this.#opts.serverVersion;
    });
  }

  // --- the machinery ----------------------------------------------------------------------------------------------

  async #serve<T>(
    init: Omit<KubeCall, 'key' | 'dryRun'>,
    signal: AbortSignal,
    answer: () => T | Promise<T>,
  ): Promise<T> {
    const dryRun = (init.options as WriteOptions | undefined)?.dryRun === true;
    const key = init.res === undefined ? '' : keyOf(init.res, init.namespace, init.name);
    const call: KubeCall = { ...init, key, dryRun };
    this.calls.push(call);
    try {
      for (const h of this.#hooks) if (h.when === 'before' && matches(h.match, call)) h.fn(call);
      signal.throwIfAborted();
      if (this.down !== undefined) throw this.down;
      const reactor = this.#reactors.find((r) => r.times > 0 && matches(r.match, call));
      if (WRITES.includes(call.verb) && this.gate !== undefined && reactor === undefined) await this.#gate(signal);
      let result: T;
      if (reactor === undefined) result = await answer();
      else {
        reactor.times--;
        const reacted = await reactor.react(call);
        if (WRITES.includes(call.verb) && this.gate !== undefined) await this.#gate(signal);
        result = reacted === undefined ? await answer() : (reacted as T);
      }
      call.done = true;
      for (const h of this.#hooks) if (h.when === 'after' && matches(h.match, call)) h.fn(call);
      return result;
    } catch (err) {
      call.done = true;
      call.error = err;
      throw err;
    }
  }

  async #gate(signal: AbortSignal): Promise<void> {
    if (this.gate) await untilAborted(this.gate, signal);
  }
}
