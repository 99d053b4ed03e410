import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import {
  blamePod,
  describeRef,
  type ReleaseObjectRef,
  readyConditionEqual,
  releaseReadiness,
  surveyRelease,
} from './release.js';

const ref = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): ReleaseObjectRef =>
  namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };

const cm = ref('ConfigMap', 'settings', 'web');
const dep = ref('Deployment', 'api', 'web', 'apps/v1');
const job = ref('Job', 'migrate', 'web', 'batch/v1');
const crd = ref('CustomResourceDefinition', 'widgets.example.com', undefined, 'apiextensions.k8s.io/v1');

function live(r: ReleaseObjectRef, extra: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  const meta = { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}), ...metadata };
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: meta, ...extra } as KubeObject;
}

const readyDeployment = live(dep, {
  spec: { replicas: 1 },
  status: {
    replicas: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
    conditions: [{ type: 'Available', status: 'True' }],
  },
});
const rollingDeployment = live(dep, { spec: { replicas: 1 }, status: { replicas: 1, updatedReplicas: 1 } });
const failedJob = live(job, {
  status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] },
});
const establishedCrd = live(crd, { status: { conditions: [{ type: 'Established', status: 'True' }] } });

/** A lookup over a fixed table: refs missing from it read as `undefined` (not watched). */
function cache(entries: [ReleaseObjectRef, KubeObject | null][]) {
  const table = new Map(entries.map(([r, o]) => [describeRef(r), o]));
  return (r: ReleaseObjectRef) => table.get(describeRef(r));
}

describe('releaseReadiness', () => {
  it('is True for an empty manifest', () => {
    expect(releaseReadiness([], () => undefined)).toEqual({
      status: 'True',
      reason: 'AllObjectsReady',
      message: 'the release has no objects',
    });
  });

  it('is True with a count when every object is ready', () => {
    const lookup = cache([
      [cm, live(cm)],
      [dep, readyDeployment],
      [crd, establishedCrd],
    ]);
    expect(releaseReadiness([cm, dep, crd], lookup)).toEqual({
      status: 'True',
      reason: 'AllObjectsReady',
      message: '3 objects ready',
    });
    expect(releaseReadiness([cm], lookup).message).toBe('1 object ready');
  });

  it('names the first not-ready object, as Kind namespace/name, with its health message', () => {
    const c = releaseReadiness(
      [cm, dep],
      cache([
        [cm, live(cm)],
        [dep, rollingDeployment],
      ]),
    );
    expect(c).toEqual({ status: 'False', reason: 'DeploymentNotReady', message: 'Deployment web/api: Available: 0/1' });
  });

  it('lets manifest order decide, and counts the other not-ready objects', () => {
    const lookup = cache([
      [cm, live(cm)],
      [dep, rollingDeployment],
      [job, failedJob],
    ]);
    expect(releaseReadiness([cm, dep, job], lookup)).toEqual({
      status: 'False',
      reason: 'DeploymentNotReady',
      message: 'Deployment web/api: Available: 0/1 (2 of 3 objects not ready)',
    });
    expect(releaseReadiness([job, dep, cm], lookup)).toEqual({
      status: 'False',
      reason: 'JobFailed',
      message: 'Job web/migrate: Job failed: BackoffLimitExceeded (2 of 3 objects not ready)',
    });
  });

  it('reports a known-absent object as not found', () => {
    expect(
      releaseReadiness(
        [cm, dep],
        cache([
          [cm, live(cm)],
          [dep, null],
        ]),
      ),
    ).toEqual({
      status: 'False',
      reason: 'DeploymentNotReady',
      message: 'Deployment web/api: not found',
    });
  });

  it('names cluster-scoped objects without a namespace', () => {
    const pending = live(crd, {
      status: { conditions: [{ type: 'Established', status: 'False', reason: 'Installing' }] },
    });
    expect(releaseReadiness([crd], cache([[crd, pending]]))).toEqual({
      status: 'False',
      reason: 'CustomResourceDefinitionNotReady',
      message: 'CustomResourceDefinition widgets.example.com: Install in progress',
    });
  });

  it('reports a terminating object as not ready', () => {
    const deleting = live(cm, {}, { deletionTimestamp: '2024-01-01T00:00:00Z' });
    expect(releaseReadiness([cm], cache([[cm, deleting]]))).toEqual({
      status: 'False',
      reason: 'ConfigMapNotReady',
      message: 'ConfigMap web/settings: scheduled for deletion',
    });
  });

  it('is Unknown, naming the first unreadable object, when nothing known is not ready', () => {
    const c = releaseReadiness([cm, dep, job], cache([[cm, live(cm)]]));
    expect(c).toEqual({
      status: 'Unknown',
      reason: 'StatusUnknown',
      message: 'Deployment web/api: state not known yet (2 of 3 objects unknown)',
    });
    expect(releaseReadiness([dep], () => undefined).message).toBe('Deployment web/api: state not known yet');
  });

  it('prefers a known not-ready object to an unknown one, whatever the order', () => {
    const c = releaseReadiness([dep, job], cache([[job, failedJob]]));
    expect(c.status).toBe('False');
    expect(c.reason).toBe('JobFailed');
    expect(c.message).toBe('Job web/migrate: Job failed: BackoffLimitExceeded');
  });

  it('keeps reasons valid condition reasons even for odd kinds', () => {
    const odd = ref('my-kind', 'x', 'ns', 'example.com/v1');
    expect(releaseReadiness([odd], () => null).reason).toBe('mykindNotReady');
    const digits = ref('9lives', 'x', 'ns', 'example.com/v1');
    expect(releaseReadiness([digits], () => null).reason).toBe('ObjectNotReady');
  });

  it('calls lookup once per object, in manifest order', () => {
    const seen: string[] = [];
    releaseReadiness([cm, dep, job], (r) => {
      seen.push(r.name);
      return null;
    });
    expect(seen).toEqual(['settings', 'api', 'migrate']);
  });
});

describe('readyConditionEqual', () => {
  it('compares status, reason and message', () => {
    const a = { status: 'True', reason: 'AllObjectsReady', message: '2 objects ready' } as const;
    expect(readyConditionEqual(a, { ...a })).toBe(true);
    expect(readyConditionEqual(a, { ...a, message: '3 objects ready' })).toBe(false);
    expect(readyConditionEqual(a, { ...a, status: 'Unknown' })).toBe(false);
    expect(readyConditionEqual(a, { ...a, reason: 'Other' })).toBe(false);
  });
});

describe('releaseReadiness with extended refs', () => {
  it('hands each ref back to lookup as passed, extra fields included', () => {
    const refs = [
      { ...dep, watched: true },
      { ...job, watched: false },
    ];
    const c = releaseReadiness(refs, (r) => (r.watched ? readyDeployment : undefined));
    expect(c).toEqual({ status: 'Unknown', reason: 'StatusUnknown', message: 'Job web/migrate: state not known yet' });
  });
});

describe('surveyRelease and blamePod', () => {
  const sts = ref('StatefulSet', 'db', 'web', 'apps/v1');
  const cause = { pod: 'api-7d9c-x', container: 'nginx', init: false, reason: 'ImagePullBackOff' } as const;

  it('lists the workloads that are not ready, in manifest order, with their live objects', () => {
    const rollingDb = live(sts, { spec: { replicas: 1 }, status: { replicas: 1 } });
    const failingJob = live(job, { status: { failed: 1, conditions: [{ type: 'Failed', status: 'True' }] } });
    const survey = surveyRelease(
      [cm, dep, sts, job],
      cache([
        [cm, null],
        [dep, rollingDeployment],
        [sts, rollingDb],
        [job, failingJob],
      ]),
    );
    expect(survey.condition).toMatchObject({ status: 'False', reason: 'ConfigMapNotReady' });
    expect(survey.workloads.map((w) => [w.ref, w.live])).toEqual([
      [dep, rollingDeployment],
      [sts, rollingDb],
      [job, failingJob],
    ]);
    expect([survey.notReady, survey.total]).toEqual([4, 4]);
  });

  it('lists none whose controller has made no pod yet (their status counts none): nothing to list', () => {
    const fresh = live(dep, { spec: { replicas: 1 }, status: {} });
    const survey = surveyRelease(
      [dep, job],
      cache([
        [dep, fresh],
        [job, failedJob],
      ]),
    );
    expect(survey.condition.status).toBe('False');
    expect(survey.workloads).toEqual([]);
  });

  it('lists none when the release is ready or unknown, and none that are being deleted', () => {
    expect(surveyRelease([dep], cache([[dep, readyDeployment]])).workloads).toEqual([]);
    expect(surveyRelease([dep], cache([])).workloads).toEqual([]);
    const deleting = live(dep, { spec: {}, status: { replicas: 1 } }, { deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(surveyRelease([dep], cache([[dep, deleting]])).workloads).toEqual([]);
  });

  it('names the pod, its container and the waiting reason, keeping the count of objects not ready', () => {
    const one = surveyRelease(
      [cm, dep],
      cache([
        [cm, live(cm)],
        [dep, rollingDeployment],
      ]),
    );
    expect(blamePod(one, dep, cause)).toEqual({
      status: 'False',
      reason: 'ImagePullBackOff',
      message: 'Deployment web/api: pod api-7d9c-x: container nginx: ImagePullBackOff',
    });
    const two = surveyRelease(
      [cm, dep],
      cache([
        [cm, null],
        [dep, rollingDeployment],
      ]),
    );
    expect(blamePod(two, dep, { ...cause, init: true, reason: 'CrashLoopBackOff' })).toEqual({
      status: 'False',
      reason: 'CrashLoopBackOff',
      message: 'Deployment web/api: pod api-7d9c-x: init container nginx: CrashLoopBackOff (2 of 2 objects not ready)',
    });
  });
});
