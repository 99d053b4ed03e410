// KubeClient over raw JSON HTTP: CRUD, patch, list, streaming watch, discovery and /version, with a client-side
// rate limit and request timeout. Built by kube/client.ts around a Send; unit tests can pass their own Send.
// Must never pass objects through a typed serializer (unknown fields must survive) and never put bodies in errors.

import { deadline } from '../core/deadline.js';
import { KubeApiError, KubeTransportError, kubeApiError, NotFoundError } from './errors.js';
import type { HttpRequest, HttpResponse, Send } from './http.js';
import { LineSplitter } from './ndjson.js';
import { apiVersionOf, discoveryPath, patchContentType, queryString, resourcePath } from './paths.js';
import type { TokenBucket } from './ratelimit.js';
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
} from './types.js';

export interface RestClientOptions {
  readonly send: Send;
  readonly userAgent: string;
  /** Every request (watches included) takes a token first. @default no limit */
  readonly limiter?: TokenBucket;
  /** Client-side deadline for each non-watch request, including reading its body. @default 60_000 */
  readonly requestTimeoutMs?: number;
}

interface ApiResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean }>;
}

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Server-side conversion to metadata only (client-go's metadata client), with plain JSON as the fallback. */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export class RestClient implements KubeClient {
  readonly #send: Send;
  readonly #userAgent: string;
  readonly #limiter: TokenBucket | undefined;
  readonly #timeoutMs: number;
  readonly #discovery = new Map<string, ApiResourceList>();

  constructor(options: RestClientOptions) {
    this.#send = options.send;
    this.#userAgent = options.userAgent;
    this.#limiter = options.limiter;
    this.#timeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  async get(res: ApiResource, namespace: string, name: string, { signal }: RequestOptions): Promise<KubeObject> {
    return this.#json('GET', resourcePath(res, { namespace, name }), '', signal);
  }

  async list(res: ApiResource, options: ListOptions): Promise<ListResult> {
    const { namespace, labelSelector, fieldSelector, limit, signal } = options;
    const query = queryString({ labelSelector, fieldSelector, limit, continue: options.continue });
    const path = resourcePath(res, namespace === undefined ? {} : { namespace });
    const body = await this.#json<{ metadata?: { resourceVersion?: string; continue?: string }; items?: unknown }>(
      'GET',
      path,
      query,
      signal,
      undefined,
      undefined,
      options.metadataOnly === true ? METADATA_LIST : undefined,
    );
    const apiVersion = apiVersionOf(res);
    const items = (Array.isArray(body.items) ? (body.items as KubeObject[]) : []).map((item) => ({
      ...item,
      apiVersion: item.apiVersion ?? apiVersion,
      kind: item.kind ?? res.kind,
    }));
    const next = body.metadata?.continue;
    return {
      items,
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(next === undefined || next === '' ? {} : { continue: next }),
    };
  }

  async create(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const path = resourcePath(res, namespaceOf(obj));
    return this.#json('POST', path, writeQuery(options), options.signal, JSON.stringify(obj));
  }

  async update(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const path = resourcePath(res, { ...namespaceOf(obj), name: obj.metadata.name ?? '' });
    return this.#json('PUT', path, writeQuery(options), options.signal, JSON.stringify(obj));
  }

  async updateStatus(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const path = resourcePath(res, { ...namespaceOf(obj), name: obj.metadata.name ?? '', subresource: 'status' });
    return this.#json('PUT', path, writeQuery(options), options.signal, JSON.stringify(obj));
  }

  async patch(
    res: ApiResource,
    namespace: string,
    name: string,
    patch: unknown,
    type: PatchType,
    options: PatchOptions,
  ): Promise<KubeObject> {
    const { subresource } = options;
    const path = resourcePath(res, { namespace, name, ...(subresource === undefined ? {} : { subresource }) });
    const query = queryString({
      fieldManager: options.fieldManager,
      dryRun: options.dryRun === true ? 'All' : undefined,
      force: type === 'apply' && options.force === true ? true : undefined,
    });
    return this.#json('PATCH', path, query, options.signal, JSON.stringify(patch), patchContentType(type));
  }

  async delete(res: ApiResource, namespace: string, name: string, options: DeleteOptions): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: options.propagationPolicy };
    await this.#json('DELETE', resourcePath(res, { namespace, name }), '', options.signal, JSON.stringify(body));
  }

  async watch(
    res: ApiResource,
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const path = resourcePath(res, options.namespace === undefined ? {} : { namespace: options.namespace });
    const query = queryString({
      watch: true,
      resourceVersion: options.resourceVersion,
      timeoutSeconds: options.timeoutSeconds,
      allowWatchBookmarks: options.allowWatchBookmarks,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    });
    const operation = `WATCH ${path}`;
    signal.throwIfAborted();
    await this.#limiter?.take(signal);
    let response: HttpResponse;
    try {
      const headers = options.metadataOnly === true ? { headers: { Accept: METADATA_OBJECT } } : {};
      response = await this.#open({ method: 'GET', path: path + query, signal, ...headers }, operation);
    } catch (err) {
      throw this.#mapFailure(err, signal, operation);
    }
    const splitter = new LineSplitter();
    let callerError: { readonly err: unknown } | undefined;
    const deliver = (line: string) => {
      const event = parseWatchEvent(line, operation);
      try {
        onEvent(event);
      } catch (err) {
        callerError = { err };
        throw err;
      }
    };
    try {
      for await (const chunk of response.body) for (const line of splitter.push(chunk)) deliver(line);
      for (const line of splitter.end()) deliver(line);
    } catch (err) {
      response.discard();
      if (callerError !== undefined) throw callerError.err;
      throw this.#mapFailure(err, signal, operation);
    }
  }

  async discover(gvk: GroupVersionKind, { signal }: RequestOptions): Promise<ApiResource> {
    const key = apiVersionOf(gvk);
    const cached = this.#discovery.get(key);
    // A kind missing from a cached list may belong to a CRD created since: look once more before giving up.
    for (const list of cached === undefined ? [undefined] : [cached, undefined]) {
      const resources = list ?? (await this.#json<ApiResourceList>('GET', discoveryPath(gvk), '', signal));
      if (list === undefined) this.#discovery.set(key, resources);
      const found = resources.resources?.find((r) => r.kind === gvk.kind && !r.name.includes('/'));
      if (found !== undefined) {
        return {
          group: gvk.group,
          version: gvk.version,
          kind: gvk.kind,
          plural: found.name,
          namespaced: found.namespaced,
        };
      }
    }
    throw new NotFoundError({
      status: 404,
      reason: 'NotFound',
      serverMessage: `the server does not serve kind ${gvk.kind} in ${key}`,
      operation: `DISCOVER ${discoveryPath(gvk)}`,
    });
  }

  async serverVersion({ signal }: RequestOptions): Promise<ServerVersion> {
    return this.#json('GET', '/version', '', signal);
  }

  async #json<T>(
    method: HttpRequest['method'],
    path: string,
    query: string,
    signal: AbortSignal,
    body?: string,
    contentType = 'application/json',
    accept?: string,
  ): Promise<T> {
    const operation = `${method} ${path}`;
    signal.throwIfAborted();
    await this.#limiter?.take(signal);
    // Started after the rate-limit wait: the deadline covers the server, not our own queue.
    const timeout = deadline(this.#timeoutMs);
    const request: HttpRequest = {
      method,
      path: path + query,
      signal: AbortSignal.any([signal, timeout.signal]),
      ...(body === undefined ? {} : { body }),
      headers: {
        ...(body === undefined ? {} : { 'Content-Type': contentType }),
        ...(accept === undefined ? {} : { Accept: accept }),
      },
    };
    try {
      const response = await this.#open(request, operation);
      return decodeJson<T>(await response.text(), operation);
    } catch (err) {
      if (timeout.signal.aborted && !signal.aborted && !(err instanceof KubeApiError)) {
        throw new KubeTransportError(`no complete response within ${this.#timeoutMs} ms`, { operation, cause: err });
      }
      throw this.#mapFailure(err, signal, operation);
    } finally {
      timeout.clear();
    }
  }

  /** Sends, and turns a non-2xx status into a KubeApiError (after reading its body). Other errors pass through. */
  async #open(request: HttpRequest, operation: string): Promise<HttpResponse> {
    const headers = { Accept: 'application/json', 'User-Agent': this.#userAgent, ...request.headers };
    const response = await this.#send({ ...request, headers });
    if (response.status >= 200 && response.status < 300) return response;
    let text = '';
    try {
      text = await response.text();
    } catch {
      // The status alone still says what happened.
    }
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A non-JSON error body (e.g. from a proxy): its text is the message.
    }
    throw kubeApiError(response.status, parsed, operation);
  }

  /** The error to throw for `err`: the abort reason, our own errors as they are, anything else as transport. */
  #mapFailure(err: unknown, signal: AbortSignal, operation: string): unknown {
    if (signal.aborted) return signal.reason;
    if (err instanceof KubeApiError || err instanceof KubeTransportError) return err;
    return new KubeTransportError(messageOf(err), { operation, cause: err });
  }
}

function namespaceOf(obj: KubeObject): { namespace?: string } {
  const ns = obj.metadata.namespace;
  return ns === undefined ? {} : { namespace: ns };
}

function writeQuery(options: WriteOptions): string {
  return queryString({ fieldManager: options.fieldManager, dryRun: options.dryRun === true ? 'All' : undefined });
}

function decodeJson<T>(text: string, operation: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new KubeTransportError('the response is not valid JSON', { operation, cause: err });
  }
}

function parseWatchEvent(line: string, operation: string): WatchEvent {
  const event = decodeJson<{ type?: unknown; object?: unknown }>(line, operation);
  if (typeof event.type !== 'string' || !WATCH_TYPES.has(event.type) || typeof event.object !== 'object') {
    throw new KubeTransportError(`unexpected watch event type ${JSON.stringify(event.type)}`, { operation });
  }
  return event as WatchEvent;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
