// --metrics-require-rbac: authenticates a /metrics bearer token with a TokenReview and authorizes the user with a
// SubjectAccessReview for `get` on the non-resource URL /metrics (controller-runtime's WithAuthenticationAndAuthorization
// filter). Built by the CLI (cmd/cli.ts), which hands it to the HTTP server as its per-request check; decisions are
// cached per sha256 of the token. Never logs, caches or returns the token itself.
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import type { AuthorizeResult, MetricsAuthorizer } from './http.js';

export const TOKEN_REVIEWS: ApiResource = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
};

export const SUBJECT_ACCESS_REVIEWS: ApiResource = {
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
};

export interface MetricsAuthorizerOptions {
  readonly kube: Pick<KubeClient, 'create'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a 200/401/403 decision is reused for the same token. @default 10_000 */
  readonly cacheTtlMs?: number;
  /** Decisions kept at most (the oldest go first). @default 1024 */
  readonly maxCacheEntries?: number;
}

interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Returns the authorizer for `startHttpServers({ authorize })`. API failures are 500s and are not cached. */
export function createMetricsAuthorizer(o: MetricsAuthorizerOptions): MetricsAuthorizer {
  const ttl = o.cacheTtlMs ?? 10_000;
  const max = o.maxCacheEntries ?? 1024;
  const cache = new Map<string, { readonly until: number; readonly result: AuthorizeResult }>();

  const remember = (key: string, result: AuthorizeResult): AuthorizeResult => {
    const now = o.clock.now();
    if (cache.size >= max) {
      for (const [k, v] of cache) if (v.until <= now) cache.delete(k);
      for (const k of cache.keys()) {
        if (cache.size < max) break;
        cache.delete(k);
      }
    }
    cache.delete(key);
    cache.set(key, { until: now + ttl, result });
    return result;
  };

  return async (authorization, signal) => {
    const token = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) return { status: 401, message: 'Unauthorized' };
    const key = createHash('sha256').update(token).digest('hex');
    const hit = cache.get(key);
    if (hit !== undefined) {
      if (hit.until > o.clock.now()) return hit.result;
      cache.delete(key);
    }

    let user: UserInfo;
    try {
      const review = await o.kube.create(
        TOKEN_REVIEWS,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } },
        { signal },
      );
      const status = statusOf<{ authenticated?: boolean; user?: UserInfo }>(review);
      if (status.authenticated !== true) return remember(key, { status: 401, message: 'Unauthorized' });
      user = status.user ?? {};
    } catch (err) {
      return failed(err, 'TokenReview', 'Authentication failed', signal);
    }

    try {
      const review = await o.kube.create(
        SUBJECT_ACCESS_REVIEWS,
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path: '/metrics', verb: 'get' },
          },
        },
        { signal },
      );
      const status = statusOf<{ allowed?: boolean }>(review);
      if (status.allowed === true) return remember(key, { status: 200 });
      o.logger.debug({ user: user.username }, 'Metrics request denied');
      return remember(key, { status: 403, message: `Authorization denied for user ${user.username ?? ''}` });
    } catch (err) {
      return failed(err, 'SubjectAccessReview', 'Authorization failed', signal);
    }
  };

  function failed(err: unknown, review: string, message: string, signal: AbortSignal): AuthorizeResult {
    // A client that went away needs no answer and is no server error.
    if (!signal.aborted) o.logger.error({ err: errFields(err), review }, 'Cannot check a metrics request');
    return { status: 500, message };
  }
}

function statusOf<T>(obj: KubeObject): T {
  const status = obj.status;
  return (typeof status === 'object' && status !== null ? status : {}) as T;
}
