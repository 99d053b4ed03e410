// How test/fakes/kube-api.ts records requests and picks the ones a reactor, hook or injected error applies to:
// the verbs, one call's record, and the CallMatch filter. Test-only; pure types and functions.
import type { ApiResource, GroupVersionKind, PatchType } from '../../src/kube/types.js';

export type Verb =
  | 'get'
  | 'list'
  | 'create'
  | 'update'
  | 'updateStatus'
  | 'patch'
  | 'delete'
  | 'watch'
  | 'discover'
  | 'serverVersion';

export const WRITES: readonly Verb[] = ['create', 'update', 'updateStatus', 'patch', 'delete'];

/** One request as the fake server saw it; `error` is set once it failed, `done` once it answered. */
export interface KubeCall {
  readonly verb: Verb;
  /** The resource; absent for `discover` (see `gvk`) and `serverVersion`. */
  readonly res?: ApiResource;
  readonly gvk?: GroupVersionKind;
  readonly namespace: string;
  readonly name: string;
  /** The store key, `plural/namespace/name` (`plural/name` when cluster-scoped); '' without a resource. */
  readonly key: string;
  readonly body?: unknown;
  readonly patchType?: PatchType;
  readonly options?: unknown;
  readonly dryRun: boolean;
  done?: boolean;
  error?: unknown;
}

/** Which calls a reactor, hook or injected error applies to; every given field must match. */
export interface CallMatch {
  readonly verb?: Verb | readonly Verb[];
  readonly plural?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly key?: string;
  readonly dryRun?: boolean;
  readonly patchType?: PatchType;
}

/** Answers matching calls instead of the store (client-go's reactors); return `undefined` to fall through. */
export type Reactor = (call: KubeCall) => unknown;

export function matches(m: CallMatch, c: KubeCall): boolean {
  return (
    (m.verb === undefined || (typeof m.verb === 'string' ? m.verb === c.verb : m.verb.includes(c.verb))) &&
    (m.plural === undefined || m.plural === c.res?.plural) &&
    (m.kind === undefined || m.kind === (c.gvk?.kind ?? c.res?.kind)) &&
    (m.namespace === undefined || m.namespace === c.namespace) &&
    (m.name === undefined || m.name === c.name) &&
    (m.key === undefined || m.key === c.key) &&
    (m.dryRun === undefined || m.dryRun === c.dryRun) &&
    (m.patchType === undefined || m.patchType === c.patchType)
  );
}
