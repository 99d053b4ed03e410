import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeKubeApi } from '../../test/fakes/kube-api.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import { silentLogger } from '../core/logger.js';
import { ForbiddenError, KubeTransportError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { PODS, PodCauses } from './pod-causes.js';

const signal = new AbortController().signal;

const web: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'team', uid: 'u1', generation: 1 },
  spec: { selector: { matchLabels: { app: 'web' } } },
};

function pod(name: string, app: string, reason: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team', labels: { app } },
    status: { containerStatuses: [{ name: 'nginx', state: { waiting: { reason, message: 'image x:1 not found' } } }] },
  };
}

function setup() {
  const kube = new FakeKubeApi({
    objects: [pod('web-1', 'web', 'ErrImagePull'), pod('other-1', 'other', 'CrashLoopBackOff')],
  });
  const clock = new FakeClock({ nowMs: 1_000_000 });
  const { logger, lines } = recordingLogger();
  const causes = new PodCauses({ kube, clock, logger });
  return { kube, clock, causes, lines };
}

describe('PodCauses', () => {
  it('lists the pods by the workload’s selector in its namespace, one page, and names the cause', async () => {
    const t = setup();
    expect(await t.causes.cause(web, signal, silentLogger)).toEqual({
      pod: 'web-1',
      container: 'nginx',
      init: false,
      reason: 'ImagePullBackOff',
    });
    expect(t.kube.listCalls).toEqual([
      expect.objectContaining({ namespace: 'team', labelSelector: 'app=web', limit: 50 }),
    ]);
    expect(t.kube.callsOf('list')[0]?.res).toEqual(PODS);
  });

  it('lists at most once per window per workload generation; a new generation lists at once', async () => {
    const t = setup();
    await t.causes.cause(web, signal, silentLogger);
    t.clock.advance(3_999);
    await t.causes.cause(web, signal, silentLogger);
    expect(t.causes.lists).toBe(1);
    await t.causes.cause({ ...web, metadata: { ...web.metadata, generation: 2 } }, signal, silentLogger);
    expect(t.causes.lists).toBe(2);
    t.clock.advance(4_000);
    await t.causes.cause({ ...web, metadata: { ...web.metadata, generation: 2 } }, signal, silentLogger);
    expect(t.causes.lists).toBe(3);
  });

  it('sends no request for a workload without a usable selector', async () => {
    const t = setup();
    expect(await t.causes.cause({ ...web, spec: { selector: {} } }, signal, silentLogger)).toBe(undefined);
    expect(await t.causes.cause({ ...web, spec: {} }, signal, silentLogger)).toBe(undefined);
    expect(t.kube.listCalls).toEqual([]);
  });

  it('after a 403 turns the namespace off for 10 minutes, warning once, and never throws', async () => {
    const t = setup();
    t.kube.failOn({ verb: 'list' }, new ForbiddenError({ status: 403, serverMessage: 'pods is forbidden' }));
    expect(await t.causes.cause(web, signal, silentLogger)).toBe(undefined);
    expect(t.causes.enabled('team')).toBe(false);
    expect(await t.causes.cause({ ...web, metadata: { ...web.metadata, generation: 5 } }, signal, silentLogger)).toBe(
      undefined,
    );
    expect(t.causes.lists).toBe(1);
    t.clock.advance(600_000);
    expect(t.causes.enabled('team')).toBe(true);
    await t.causes.cause(web, signal, silentLogger);
    expect(t.causes.lists).toBe(2);
    expect(t.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'Cannot list pods: Ready will not name why a workload is not ready (grant pods get/list to the operator)',
    ]);
  });

  it('logs any other failure and answers undefined; an abort is thrown', async () => {
    const t = setup();
    t.kube.failOn({ verb: 'list' }, new KubeTransportError('connection reset'), 1);
    const { logger, lines } = recordingLogger();
    expect(await t.causes.cause(web, signal, logger)).toBe(undefined);
    expect(lines.filter((l) => l.level !== 'debug').map((l) => l.msg)).toEqual(['Cannot list the pods of a workload']);
    expect(t.causes.enabled('team')).toBe(true);
    const aborted = AbortSignal.abort(new Error('stop'));
    await expect(
      t.causes.cause({ ...web, metadata: { ...web.metadata, generation: 9 } }, aborted, logger),
    ).rejects.toThrow('stop');
  });
});
