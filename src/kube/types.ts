// The Kubernetes API as this operator sees it: unstructured objects (plain JSON, never typed models) and the
// KubeClient interface that kube/client.ts implements and test/fakes/kube-api.ts fakes. Types only, no runtime code.
// Must never import @kubernetes/client-node: every layer above kube/ imports these types.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The metadata fields the operator reads; every other field the server sends is kept as-is. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: OwnerReference[];
  [k: string]: unknown;
}

/** Any Kubernetes object, as raw JSON: fields the operator does not know about survive a read-modify-write. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

/** A `Status` object, as the API server returns it for failures and in watch ERROR events. */
export interface KubeStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number; [k: string]: unknown };
  [k: string]: unknown;
}

export interface GroupVersionKind {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A REST resource: what discovery maps a GroupVersionKind to (the RESTMapper analogue). */
export interface ApiResource extends GroupVersionKind {
  /** The lower-case plural used in URLs, e.g. `configmaps`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  platform?: string;
  [k: string]: unknown;
}

export interface RequestOptions {
  readonly signal: AbortSignal;
}

export interface WriteOptions extends RequestOptions {
  /** The field manager recorded in managedFields. @default the server's default (the user agent) */
  readonly fieldManager?: string;
  /** Validate and default on the server without persisting. @default false */
  readonly dryRun?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. @default false */
  readonly force?: boolean;
  /** Patch a subresource instead, e.g. `status`. @default none */
  readonly subresource?: string;
}

export interface DeleteOptions extends RequestOptions {
  /** @default the resource's default (usually 'Background') */
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
}

export interface ListOptions extends RequestOptions {
  /** '' or absent lists all namespaces; ignored for cluster-scoped resources. @default '' */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; the server returns `continue` while more pages remain. @default no limit */
  readonly limit?: number;
  readonly continue?: string;
  /** Items as PartialObjectMetadata: only apiVersion, kind and metadata are transferred. @default false */
  readonly metadataOnly?: boolean;
}

export interface ListResult {
  /** Items always carry apiVersion and kind (the server omits them inside lists; the client fills them in). */
  readonly items: KubeObject[];
  /** The collection's resourceVersion: start a watch here to see every later change. */
  readonly resourceVersion: string;
  readonly continue?: string;
}

export interface WatchOptions {
  /** '' or absent watches all namespaces; ignored for cluster-scoped resources. @default '' */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Events after this version are sent; '' means "start with synthetic ADDED events for everything". */
  readonly resourceVersion: string;
  /** The server ends the watch after this many seconds (a normal end, not an error). */
  readonly timeoutSeconds: number;
  readonly allowWatchBookmarks: boolean;
  /** Objects as PartialObjectMetadata: only apiVersion, kind and metadata are transferred. @default false */
  readonly metadataOnly?: boolean;
}

export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly object: KubeStatus };

/**
 * Raw-JSON access to the API server. Every method rejects with a KubeApiError subclass for an HTTP error status,
 * a KubeTransportError for network/decoding failures or a client-side timeout, and `signal.reason` on abort.
 */
export interface KubeClient {
  get(res: ApiResource, namespace: string, name: string, options: RequestOptions): Promise<KubeObject>;
  list(res: ApiResource, options: ListOptions): Promise<ListResult>;
  /** POST; the namespace comes from `obj.metadata.namespace`. */
  create(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject>;
  /** PUT; fails with ConflictError when `obj.metadata.resourceVersion` is stale. */
  update(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject>;
  /** PUT on the status subresource; only `status` (and the resourceVersion precondition) is used by the server. */
  updateStatus(res: ApiResource, obj: KubeObject, options: WriteOptions): Promise<KubeObject>;
  patch(
    res: ApiResource,
    namespace: string,
    name: string,
    patch: unknown,
    type: PatchType,
    options: PatchOptions,
  ): Promise<KubeObject>;
  delete(res: ApiResource, namespace: string, name: string, options: DeleteOptions): Promise<void>;
  /**
   * Streams events to `onEvent` (called synchronously, in order) until the server ends the watch (resolves), the
   * request fails (rejects) or `signal` aborts (rejects with its reason). ERROR events are delivered, not thrown.
   */
  watch(
    res: ApiResource,
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void>;
  /** Maps a kind to its REST resource via the discovery endpoint; cached per group/version. */
  discover(gvk: GroupVersionKind, options: RequestOptions): Promise<ApiResource>;
  serverVersion(options: RequestOptions): Promise<ServerVersion>;
}
