import { describe, expect, it } from 'vitest';
import { CONDITION_CATALOGUE, POD_WAIT_REASONS } from '../conditions/condition-catalogue.js';
import type { KubeObject } from '../kube/types.js';
import { describeCause, hasPods, isWorkload, podsCause, waitReason, workloadSelector } from './pods.js';

type Status = { name: string; state: Record<string, unknown> };
const waiting = (name: string, reason: string, message = 'image registry.invalid/secret:1 not found'): Status => ({
  name,
  state: { waiting: { reason, message } },
});
const running = (name: string): Status => ({ name, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } });

function pod(
  name: string,
  containers: Status[],
  o: { init?: Status[]; created?: string; deleting?: boolean } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      creationTimestamp: o.created ?? '2026-01-01T00:00:00Z',
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
    },
    status: { containerStatuses: containers, ...(o.init ? { initContainerStatuses: o.init } : {}) },
  };
}

describe('podsCause', () => {
  it.each([
    ['ImagePullBackOff', 'ImagePullBackOff'],
    ['ErrImagePull (read as the back-off it alternates with)', 'ErrImagePull'],
    ['CrashLoopBackOff', 'CrashLoopBackOff'],
    ['CreateContainerConfigError', 'CreateContainerConfigError'],
    ['InvalidImageName', 'InvalidImageName'],
    ['ErrImageNeverPull', 'ErrImageNeverPull'],
  ])('names a container waiting in %s', (_, reason) => {
    const cause = podsCause([pod('web-1', [running('side'), waiting('nginx', reason)])]);
    expect(cause).toEqual({
      pod: 'web-1',
      container: 'nginx',
      init: false,
      reason: reason === 'ErrImagePull' ? 'ImagePullBackOff' : reason,
    });
  });

  it('ignores the waits of a container that is merely starting', () => {
    expect(podsCause([pod('web-1', [waiting('nginx', 'ContainerCreating'), waiting('b', 'PodInitializing')])])).toBe(
      undefined,
    );
    expect(podsCause([pod('web-1', [running('nginx')])])).toBe(undefined);
    expect(podsCause([])).toBe(undefined);
  });

  it('looks at init containers first, since they hold the others back', () => {
    const cause = podsCause([
      pod('web-1', [waiting('nginx', 'CrashLoopBackOff')], { init: [waiting('setup', 'ErrImagePull')] }),
    ]);
    expect(cause).toEqual({ pod: 'web-1', container: 'setup', init: true, reason: 'ImagePullBackOff' });
    expect(describeCause(cause ?? expect.fail('no cause'))).toBe('pod web-1: init container setup: ImagePullBackOff');
  });

  it('prefers the newest pod (a rollout’s), then the name, whatever the list order, and skips pods being deleted', () => {
    const old = pod('web-a', [waiting('nginx', 'CrashLoopBackOff')], { created: '2026-01-01T00:00:00Z' });
    const fresh = pod('web-z', [waiting('nginx', 'ImagePullBackOff')], { created: '2026-01-01T00:05:00Z' });
    const twin = pod('web-b', [waiting('nginx', 'InvalidImageName')], { created: '2026-01-01T00:05:00Z' });
    expect(podsCause([old, fresh, twin])?.pod).toBe('web-b');
    expect(podsCause([twin, old, fresh])?.pod).toBe('web-b');
    const gone = pod('web-b', [waiting('nginx', 'InvalidImageName')], {
      created: '2026-01-01T00:05:00Z',
      deleting: true,
    });
    expect(podsCause([old, gone])?.pod).toBe('web-a');
  });

  it('never carries the waiting message or the image into what it describes', () => {
    const cause = podsCause([
      pod('web-1', [waiting('nginx', 'ErrImagePull', 'pull registry.invalid/secret:1 failed')]),
    ]);
    expect(JSON.stringify(cause)).not.toMatch(/registry|secret/);
  });
});

describe('waitReason, isWorkload and the catalogue', () => {
  it('reads only the reasons that name a cause', () => {
    expect(waitReason('ErrImagePull')).toBe('ImagePullBackOff');
    expect(waitReason('CrashLoopBackOff')).toBe('CrashLoopBackOff');
    expect(waitReason('ContainerCreating')).toBe(undefined);
    expect(waitReason(undefined)).toBe(undefined);
    expect(waitReason('toString')).toBe(undefined);
  });

  it('knows the workload kinds by group', () => {
    expect(['Deployment', 'StatefulSet', 'DaemonSet'].every((k) => isWorkload('apps/v1', k))).toBe(true);
    expect(isWorkload('batch/v1', 'Job')).toBe(true);
    expect(isWorkload('v1', 'Pod')).toBe(false);
    expect(isWorkload('example.com/v1', 'Deployment')).toBe(false);
    expect(isWorkload('batch/v1', 'CronJob')).toBe(false);
  });

  it.each([
    ['Deployment', { replicas: 1 }, true],
    ['Deployment', { replicas: 0 }, false],
    ['Deployment', {}, false],
    ['StatefulSet', { replicas: 2 }, true],
    ['DaemonSet', { currentNumberScheduled: 1 }, true],
    ['DaemonSet', { desiredNumberScheduled: 1 }, false],
    ['Job', { active: 1 }, true],
    ['Job', { failed: 2 }, true],
    ['Job', { succeeded: 1 }, false],
  ])('hasPods: a %s with status %j has pods: %s', (kind, status, want) => {
    expect(hasPods({ apiVersion: 'apps/v1', kind, metadata: { name: 'x' }, status })).toBe(want);
  });

  it('reads every catalogued pod reason, and ErrImagePull, as a Ready reason of the condition catalogue', () => {
    const ready: readonly string[] = CONDITION_CATALOGUE.Ready.reasons;
    for (const r of [...POD_WAIT_REASONS, 'ErrImagePull']) expect(ready).toContain(waitReason(r));
    expect(waitReason('ContainerCreating')).toBeUndefined();
  });
});

describe('workloadSelector', () => {
  const workload = (selector: unknown): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns' },
    spec: { selector },
  });

  it('renders matchLabels and matchExpressions as a labelSelector query', () => {
    expect(
      workloadSelector(
        workload({
          matchLabels: { app: 'web', 'app.kubernetes.io/instance': 'r1' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['b', 'a'] },
            { key: 'canary', operator: 'DoesNotExist' },
          ],
        }),
      ),
    ).toBe('app=web,app.kubernetes.io/instance=r1,!canary,tier in (a,b)');
  });

  it.each([
    ['no selector', undefined],
    ['an empty selector (every pod of the namespace)', {}],
    ['a value a query cannot carry', { matchLabels: { app: 'a,b' } }],
    ['an unknown operator', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }],
    ['a non-string value', { matchLabels: { app: 1 } }],
  ])('is undefined for %s', (_, selector) => {
    expect(workloadSelector(workload(selector))).toBe(undefined);
  });
});
