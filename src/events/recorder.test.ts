import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { type LogLine, recordingLogger } from '../../test/fakes/logger.js';
import { ConfigError } from '../core/errors.js';
import { ForbiddenError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { EventCorrelator } from './correlator.js';
import { createEventRecorder, type InvolvedObject } from './recorder.js';

const signal = new AbortController().signal;
const START = Date.UTC(2025, 0, 2, 3, 4, 5);

/** An API server storing Events without resourceVersions (the tests compare whole Events); writes can be failed or held at a gate. */
const eventsKube = () => new FakeKubeApi({ resourceVersions: false });

/** The writes the server saw, as `op namespace/name body` records. */
const writes = (kube: FakeKubeApi) =>
  kube.callsOf(['create', 'patch']).map((c) => ({
    op: c.verb,
    namespace: c.namespace,
    name: c.name,
    body: c.verb === 'patch' ? { type: c.patchType, patch: c.body } : c.body,
  }));

/** The Events the server holds. */
const stored = (kube: FakeKubeApi): KubeObject[] => [...kube.objects.values()];

const nginx: InvolvedObject = {
  apiVersion: 'example.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'apps', uid: 'uid-1', resourceVersion: '42' },
};

function setup(options: { burst?: number; refillPerMinute?: number; maxPending?: number; signal?: AbortSignal } = {}) {
  const kube = eventsKube();
  const clock = new FakeClock({ nowMs: START });
  const lines: LogLine[] = [];
  const recorder = createEventRecorder({
    kube,
    component: 'nginx-controller',
    clock,
    logger: recordingLogger(lines).logger,
    ...options,
  });
  return { kube, clock, lines, recorder };
}

describe('createEventRecorder', () => {
  it('creates a v1 Event about the object with its source, reporting fields, timestamps and count 1', async () => {
    const { kube, recorder } = setup();
    recorder.event(nginx, 'Normal', 'Deployed', 'Release web installed');
    await recorder.flush(signal);

    expect(writes(kube)).toHaveLength(1);
    const [event] = stored(kube);
    expect(event).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `web.${(BigInt(START) * 1_000_000n).toString(16)}`, namespace: 'apps' },
      involvedObject: {
        apiVersion: 'example.com/v1',
        kind: 'Nginx',
        name: 'web',
        namespace: 'apps',
        uid: 'uid-1',
        resourceVersion: '42',
      },
      reason: 'Deployed',
      message: 'Release web installed',
      type: 'Normal',
      source: { component: 'nginx-controller' },
      reportingComponent: 'nginx-controller',
      reportingInstance: 'helm-operator',
      firstTimestamp: '2025-01-02T03:04:05Z',
      lastTimestamp: '2025-01-02T03:04:05Z',
      count: 1,
    });
    expect(event?.metadata.name).toMatch(/^web\.[0-9a-f]{16}$/);
    expect(recorder.stats()).toEqual({ created: 1, patched: 0, dropped: 0, failed: 0 });
  });

  it('uses the given hostname as reportingInstance', async () => {
    const kube = eventsKube();
    const recorder = createEventRecorder({ kube, component: 'c', hostname: 'pod-7', logger: recordingLogger().logger });
    recorder.event(nginx, 'Normal', 'R', 'm');
    await recorder.flush(signal);
    expect(stored(kube)[0]).toMatchObject({ reportingInstance: 'pod-7', source: { component: 'c' } });
  });

  it('returns before anything is written, and logs and drops a write the API server refuses', async () => {
    const { kube, lines, recorder } = setup();
    kube.failNextWrites(new ForbiddenError({ status: 403, serverMessage: 'namespace apps is terminating' }));
    expect(() => recorder.event(nginx, 'Warning', 'InstallError', 'boom')).not.toThrow();
    expect(writes(kube)).toHaveLength(0);

    await recorder.flush(signal);
    expect(stored(kube)).toHaveLength(0);
    expect(recorder.stats()).toMatchObject({ created: 0, failed: 1 });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'Event not written',
        obj: expect.objectContaining({ name: 'web' }),
      }),
    );
  });

  it('bumps count and lastTimestamp of the existing Event when the same event repeats within 10 minutes', async () => {
    const { kube, clock, recorder } = setup();
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    clock.advance(60_000);
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    clock.advance(600_000);
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    await recorder.flush(signal);

    expect(writes(kube).map((c) => c.op)).toEqual(['create', 'patch', 'patch']);
    expect(writes(kube)[1]?.body).toEqual({
      type: 'merge',
      patch: { count: 2, lastTimestamp: '2025-01-02T03:05:05Z' },
    });
    expect(stored(kube)).toHaveLength(1);
    expect(stored(kube)[0]).toMatchObject({
      count: 3,
      firstTimestamp: '2025-01-02T03:04:05Z',
      lastTimestamp: '2025-01-02T03:15:05Z',
    });
    expect(recorder.stats()).toMatchObject({ created: 1, patched: 2 });
  });

  it('creates a new Event when the repeat comes more than 10 minutes after the last one', async () => {
    const { kube, clock, recorder } = setup();
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    clock.advance(600_001);
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    await recorder.flush(signal);
    expect(writes(kube).map((c) => c.op)).toEqual(['create', 'create']);
    expect(stored(kube).map((e) => e.count)).toEqual([1, 1]);
  });

  it('treats a different type, reason, message or object as a different Event', async () => {
    const { kube, recorder } = setup();
    const other = { ...nginx, metadata: { ...nginx.metadata, name: 'api', uid: 'uid-2' } };
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    recorder.event(nginx, 'Normal', 'InstallError', 'boom');
    recorder.event(nginx, 'Warning', 'UpgradeError', 'boom');
    recorder.event(nginx, 'Warning', 'InstallError', 'bang');
    recorder.event(other, 'Warning', 'InstallError', 'boom');
    await recorder.flush(signal);
    expect(writes(kube).map((c) => c.op)).toEqual(['create', 'create', 'create', 'create', 'create']);
    expect(new Set(stored(kube).map((e) => e.metadata.name)).size).toBe(5);
  });

  it('aggregates repeats about the same object even when its resourceVersion changed', async () => {
    const { kube, recorder } = setup();
    recorder.event(nginx, 'Normal', 'Upgraded', 'ok');
    recorder.event({ ...nginx, metadata: { ...nginx.metadata, resourceVersion: '43' } }, 'Normal', 'Upgraded', 'ok');
    await recorder.flush(signal);
    expect(writes(kube).map((c) => c.op)).toEqual(['create', 'patch']);
  });

  it('drops events beyond the per-object burst of 25 and lets one more through every 5 seconds', async () => {
    const { kube, clock, lines, recorder } = setup();
    for (let i = 0; i < 30; i++) recorder.event(nginx, 'Warning', `Reason${i}`, 'boom');
    clock.advance(5_000);
    recorder.event(nginx, 'Warning', 'Late1', 'boom');
    recorder.event(nginx, 'Warning', 'Late2', 'boom');
    await recorder.flush(signal);

    expect(stored(kube).map((e) => e.reason)).toEqual([...Array.from({ length: 25 }, (_, i) => `Reason${i}`), 'Late1']);
    expect(recorder.stats()).toMatchObject({ created: 26, dropped: 6 });
    expect(lines.filter((l) => l.msg === 'Event dropped: rate limit').every((l) => l.level === 'debug')).toBe(true);
  });

  it('rate-limits repeats of the same event too, so a failure loop cannot flood the API with patches', async () => {
    const { kube, recorder } = setup({ burst: 3 });
    for (let i = 0; i < 10; i++) recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    await recorder.flush(signal);
    expect(writes(kube).map((c) => c.op)).toEqual(['create', 'patch', 'patch']);
    expect(stored(kube)[0]?.count).toBe(3);
    expect(recorder.stats().dropped).toBe(7);
  });

  it('rate-limits each object separately', async () => {
    const { kube, recorder } = setup({ burst: 2 });
    const other = { ...nginx, metadata: { ...nginx.metadata, name: 'api', uid: 'uid-2' } };
    for (const reason of ['A', 'B', 'C']) {
      recorder.event(nginx, 'Normal', reason, 'm');
      recorder.event(other, 'Normal', reason, 'm');
    }
    await recorder.flush(signal);
    expect(stored(kube).map((e) => `${e.metadata.name?.split('.')[0]} ${e.reason}`)).toEqual([
      'web A',
      'api A',
      'web B',
      'api B',
    ]);
  });

  it('recreates the Event under the same name with the full count when the one to bump is gone', async () => {
    const { kube, recorder } = setup();
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    await recorder.flush(signal);
    const [first] = stored(kube);
    kube.objects.clear();
    recorder.event(nginx, 'Warning', 'InstallError', 'boom');
    await recorder.flush(signal);

    expect(writes(kube).map((c) => c.op)).toEqual(['create', 'patch', 'create']);
    expect(stored(kube)).toEqual([expect.objectContaining({ metadata: first?.metadata, count: 2 })]);
  });

  it('cuts messages longer than 1024 characters', async () => {
    const { kube, recorder } = setup();
    recorder.event(nginx, 'Warning', 'InstallError', 'x'.repeat(5000));
    await recorder.flush(signal);
    const message = String(stored(kube)[0]?.message);
    expect(message).toHaveLength(1024);
    expect(message.endsWith('...')).toBe(true);
  });

  it('puts events about cluster-scoped objects in the default namespace', async () => {
    const { kube, recorder } = setup();
    recorder.event({ apiVersion: 'example.com/v1', kind: 'Cluster', metadata: { name: 'c1' } }, 'Normal', 'R', 'm');
    await recorder.flush(signal);
    expect(stored(kube)[0]).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: { apiVersion: 'example.com/v1', kind: 'Cluster', name: 'c1' },
    });
    expect(stored(kube)[0]?.involvedObject).not.toHaveProperty('namespace');
  });

  it('gives events recorded in the same millisecond distinct, increasing names', async () => {
    const { kube, recorder } = setup();
    for (const reason of ['A', 'B', 'C']) recorder.event(nginx, 'Normal', reason, 'm');
    await recorder.flush(signal);
    const names = writes(kube).map((c) => c.name);
    expect(new Set(names).size).toBe(3);
    expect([...names].sort()).toEqual(names);
  });

  it('keeps event names valid for very long object names', async () => {
    const { kube, recorder } = setup();
    const long = `${'a'.repeat(235)}-b`;
    recorder.event({ ...nginx, metadata: { name: long, namespace: 'apps' } }, 'Normal', 'R', 'm');
    await recorder.flush(signal);
    const name = writes(kube)[0]?.name ?? '';
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^a+\.[0-9a-f]{16}$/);
  });

  it('drops events about an object without a name', async () => {
    const { kube, recorder } = setup();
    recorder.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 'Normal', 'R', 'm');
    await recorder.flush(signal);
    expect(writes(kube)).toHaveLength(0);
    expect(recorder.stats().dropped).toBe(1);
  });

  it('drops new events when the write queue is full', async () => {
    const { kube, recorder } = setup({ maxPending: 2 });
    let open = () => {};
    kube.gate = new Promise((resolve) => {
      open = resolve;
    });
    for (const reason of ['A', 'B', 'C', 'D']) recorder.event(nginx, 'Normal', reason, 'm');
    open();
    await recorder.flush(signal);
    expect(stored(kube).map((e) => e.reason)).toEqual(['A', 'B']);
    expect(recorder.stats()).toMatchObject({ created: 2, dropped: 2 });
  });

  it('abandons queued writes and drops later events once its signal aborts', async () => {
    const stop = new AbortController();
    const { kube, lines, recorder } = setup({ signal: stop.signal });
    kube.gate = new Promise(() => {});
    recorder.event(nginx, 'Normal', 'A', 'm');
    recorder.event(nginx, 'Normal', 'B', 'm');
    await vi.waitFor(() => expect(writes(kube)).toHaveLength(1));
    stop.abort(new Error('shutting down'));
    recorder.event(nginx, 'Normal', 'C', 'm');
    await recorder.flush(signal);

    expect(writes(kube).map((c) => c.body)).toEqual([expect.objectContaining({ reason: 'A' })]);
    expect(recorder.stats()).toMatchObject({ created: 0, failed: 2, dropped: 1 });
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('rejects flush with the reason of its own signal while a write hangs', async () => {
    const { kube, recorder } = setup();
    kube.gate = new Promise(() => {});
    recorder.event(nginx, 'Normal', 'A', 'm');
    const abort = new AbortController();
    const flushed = recorder.flush(abort.signal);
    abort.abort(new Error('test timeout'));
    await expect(flushed).rejects.toThrow('test timeout');
  });

  it('waits in flush for writes queued while it was waiting', async () => {
    const { kube, recorder } = setup();
    let open = () => {};
    kube.gate = new Promise((resolve) => {
      open = resolve;
    });
    recorder.event(nginx, 'Normal', 'A', 'm');
    const flushed = recorder.flush(signal);
    recorder.event(nginx, 'Normal', 'B', 'm');
    open();
    await flushed;
    expect(stored(kube).map((e) => e.reason)).toEqual(['A', 'B']);
  });
});

describe('EventCorrelator', () => {
  const target = () => ({ name: 'e', namespace: 'ns' });

  it('forgets the least recently seen objects beyond maxEntries, so memory stays bounded', () => {
    const correlator = new EventCorrelator({ burst: 1, refillPerMinute: 0, maxEntries: 2 });
    const observe = (objectKey: string, eventKey = objectKey) =>
      correlator.observe({ objectKey, eventKey, now: 0, target }).action;
    expect(observe('a')).toBe('create');
    expect(observe('a', 'a2')).toBe('drop');
    observe('b');
    observe('c');
    expect(correlator.size()).toEqual({ objects: 2, events: 2 });
    expect(observe('a', 'a3')).toBe('create');
  });

  it('forgets events past their window and objects whose bucket is full again, so churn holds no memory', () => {
    const correlator = new EventCorrelator({ burst: 2, refillPerMinute: 1, windowMs: 60_000 });
    const observe = (objectKey: string, now: number) =>
      correlator.observe({ objectKey, eventKey: `${objectKey}/Created`, now, target }).action;
    for (let i = 0; i < 100; i++) observe(`cr-${i}`, i * 1000);
    // At 100 s: events of the last 60 s, and buckets used in the last 120 s (2 tokens at 1 a minute).
    expect(correlator.size()).toEqual({ objects: 100, events: 61 });
    expect(observe('late', 200_000)).toBe('create');
    expect(correlator.size()).toEqual({ objects: 20, events: 1 });
    expect(observe('cr-99', 200_000)).toBe('create');
  });

  it('still drops for an object whose bucket has not refilled, and aggregates within the window', () => {
    const correlator = new EventCorrelator({ burst: 1, refillPerMinute: 1, windowMs: 600_000 });
    const observe = (eventKey: string, now: number) =>
      correlator.observe({ objectKey: 'o', eventKey, now, target }).action;
    expect(observe('a', 0)).toBe('create');
    expect(observe('b', 30_000)).toBe('drop');
    expect(observe('a', 61_000)).toBe('patch');
    expect(observe('b', 130_000)).toBe('create');
  });

  it('counts the drops per object', () => {
    const correlator = new EventCorrelator({ burst: 1 });
    correlator.observe({ objectKey: 'o', eventKey: 'x', now: 0, target });
    correlator.observe({ objectKey: 'o', eventKey: 'y', now: 0, target });
    expect(correlator.observe({ objectKey: 'o', eventKey: 'z', now: 0, target })).toEqual({
      action: 'drop',
      droppedForObject: 2,
    });
  });

  it('rejects a burst below 1, a negative refill or an empty LRU with a ConfigError', () => {
    expect(() => new EventCorrelator({ burst: 0 })).toThrow(ConfigError);
    expect(() => new EventCorrelator({ refillPerMinute: -1 })).toThrow(ConfigError);
    expect(() => new EventCorrelator({ maxEntries: 0 })).toThrow(ConfigError);
  });
});
