// The --metrics-require-rbac authorizer against a scripted `create`: the TokenReview and SubjectAccessReview it
// posts, 401/403/500/200 decisions, the 10 s per-token cache (FakeClock), its size bound, and that the token
// never reaches the logs.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { type LogLine, lineText, recordingLogger } from '../../test/fakes/logger.js';
import type { ApiResource, KubeObject } from '../kube/types.js';
import { createMetricsAuthorizer, SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS } from './metrics-auth.js';

const USER = { username: 'system:serviceaccount:ns:reader', uid: 'u-1', groups: ['g1', 'g2'], extra: { k: ['v'] } };

/** A cluster where `good-*` tokens authenticate and only `good-allowed*` tokens may get /metrics. */
function fakeCluster(fail?: { tokenReview?: Error; sar?: Error }) {
  const api = new FakeKubeApi();
  api.react({ verb: 'create', plural: TOKEN_REVIEWS.plural }, ({ body }) => {
    if (fail?.tokenReview) throw fail.tokenReview;
    const obj = body as KubeObject;
    const token = (obj.spec as { token: string }).token;
    const ok = token.startsWith('good-');
    return {
      ...obj,
      status: ok
        ? { authenticated: true, user: { ...USER, username: `${USER.username}:${token}` } }
        : { error: 'invalid bearer token' },
    };
  });
  api.react({ verb: 'create', plural: SUBJECT_ACCESS_REVIEWS.plural }, ({ body }) => {
    if (fail?.sar) throw fail.sar;
    const obj = body as KubeObject;
    const user = (obj.spec as { user: string }).user;
    return { ...obj, status: user.endsWith(':good-allowed') ? { allowed: true } : {} };
  });
  return {
    create: api.create.bind(api),
    /** The reviews posted, in order. */
    get calls() {
      return api.callsOf('create').map((c) => ({ res: c.res as ApiResource, obj: c.body }));
    },
  };
}

const signal = new AbortController().signal;

describe('createMetricsAuthorizer', () => {
  it('posts a TokenReview, then a SubjectAccessReview for get /metrics as the reviewed user', async () => {
    const cluster = fakeCluster();
    const authorize = createMetricsAuthorizer({
      kube: cluster,
      clock: new FakeClock(),
      logger: recordingLogger().logger,
    });
    expect(await authorize('Bearer good-allowed', signal)).toEqual({ status: 200 });
    expect(cluster.calls).toEqual([
      {
        res: TOKEN_REVIEWS,
        obj: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          metadata: {},
          spec: { token: 'good-allowed' },
        },
      },
      {
        res: SUBJECT_ACCESS_REVIEWS,
        obj: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec: {
            user: `${USER.username}:good-allowed`,
            uid: 'u-1',
            groups: ['g1', 'g2'],
            extra: { k: ['v'] },
            nonResourceAttributes: { path: '/metrics', verb: 'get' },
          },
        },
      },
    ]);
    expect(TOKEN_REVIEWS).toMatchObject({ group: 'authentication.k8s.io', version: 'v1', namespaced: false });
    expect(SUBJECT_ACCESS_REVIEWS).toMatchObject({ group: 'authorization.k8s.io', plural: 'subjectaccessreviews' });
  });

  it.each([[undefined], [''], ['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer '], ['Bearer a b']])(
    'answers 401 without asking the API for the header %j',
    async (header) => {
      const cluster = fakeCluster();
      const authorize = createMetricsAuthorizer({
        kube: cluster,
        clock: new FakeClock(),
        logger: recordingLogger().logger,
      });
      expect(await authorize(header, signal)).toEqual({ status: 401, message: 'Unauthorized' });
      expect(cluster.calls).toEqual([]);
    },
  );

  it('accepts any case of "bearer" and surrounding spaces', async () => {
    const authorize = createMetricsAuthorizer({
      kube: fakeCluster(),
      clock: new FakeClock(),
      logger: recordingLogger().logger,
    });
    expect(await authorize('  bEaReR   good-allowed ', signal)).toEqual({ status: 200 });
  });

  it('answers 401 for an unauthenticated token and 403 for a user without the right', async () => {
    const cluster = fakeCluster();
    const authorize = createMetricsAuthorizer({
      kube: cluster,
      clock: new FakeClock(),
      logger: recordingLogger().logger,
    });
    expect(await authorize('Bearer bad', signal)).toEqual({ status: 401, message: 'Unauthorized' });
    expect(cluster.calls.map((c) => c.res.kind)).toEqual(['TokenReview']);
    expect(await authorize('Bearer good-denied', signal)).toEqual({
      status: 403,
      message: `Authorization denied for user ${USER.username}:good-denied`,
    });
  });

  it('answers 500 with a short message when a review fails, logs it without the token, and caches nothing', async () => {
    const lines: LogLine[] = [];
    const clock = new FakeClock();
    const tr = fakeCluster({ tokenReview: new Error('tokenreviews.authentication.k8s.io is forbidden') });
    const a1 = createMetricsAuthorizer({ kube: tr, clock, logger: recordingLogger(lines).logger });
    expect(await a1('Bearer good-secret-1', signal)).toEqual({ status: 500, message: 'Authentication failed' });
    expect(await a1('Bearer good-secret-1', signal)).toEqual({ status: 500, message: 'Authentication failed' });
    expect(tr.calls).toHaveLength(2);
    const sar = fakeCluster({ sar: new Error('connection refused') });
    const a2 = createMetricsAuthorizer({ kube: sar, clock, logger: recordingLogger(lines).logger });
    expect(await a2('Bearer good-secret-2', signal)).toEqual({ status: 500, message: 'Authorization failed' });
    expect(lines).toHaveLength(3);
    expect(lineText(lines[0] as LogLine)).toContain('tokenreviews.authentication.k8s.io is forbidden');
    expect(lineText(lines[2] as LogLine)).toContain('SubjectAccessReview');
    expect(lines.map(lineText).join('\n')).not.toContain('secret');
  });

  it('logs nothing when the request was aborted (the client went away)', async () => {
    const lines: LogLine[] = [];
    const gone = new AbortController();
    gone.abort(new Error('client went away'));
    const authorize = createMetricsAuthorizer({
      kube: fakeCluster(),
      clock: new FakeClock(),
      logger: recordingLogger(lines).logger,
    });
    expect(await authorize('Bearer good-allowed', gone.signal)).toMatchObject({ status: 500 });
    expect(lines).toEqual([]);
  });

  it('reuses a decision for the same token for 10 s, then asks again', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock({ nowMs: 1_000_000 });
    const authorize = createMetricsAuthorizer({ kube: cluster, clock, logger: recordingLogger().logger });
    for (const token of ['good-allowed', 'good-denied', 'bad']) await authorize(`Bearer ${token}`, signal);
    const asked = cluster.calls.length;
    expect(asked).toBe(5);
    clock.advance(9_999);
    expect(await authorize('Bearer good-allowed', signal)).toEqual({ status: 200 });
    expect(await authorize('Bearer good-denied', signal)).toMatchObject({ status: 403 });
    expect(await authorize('Bearer bad', signal)).toMatchObject({ status: 401 });
    expect(cluster.calls).toHaveLength(asked);
    clock.advance(1);
    expect(await authorize('Bearer good-allowed', signal)).toEqual({ status: 200 });
    expect(cluster.calls).toHaveLength(asked + 2);
  });

  it('keeps at most maxCacheEntries decisions, dropping the oldest', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock();
    const authorize = createMetricsAuthorizer({
      kube: cluster,
      clock,
      logger: recordingLogger().logger,
      maxCacheEntries: 2,
    });
    await authorize('Bearer bad-1', signal);
    await authorize('Bearer bad-2', signal);
    await authorize('Bearer bad-3', signal);
    expect(cluster.calls).toHaveLength(3);
    await authorize('Bearer bad-3', signal);
    await authorize('Bearer bad-2', signal);
    expect(cluster.calls).toHaveLength(3);
    await authorize('Bearer bad-1', signal);
    expect(cluster.calls).toHaveLength(4);
  });
});
