import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { type Health, healthKey, objectHealth, sameHealth } from './rules.js';

type Obj = Record<string, unknown>;
type Cond = { type: string; status: string; reason?: string; message?: string };

/** A live object of `apiVersion`/`kind` with the given spec, status and metadata (generation 1 by default). */
function obj(apiVersion: string, kind: string, spec: Obj = {}, status: Obj = {}, metadata: Obj = {}): KubeObject {
  return { apiVersion, kind, metadata: { name: 'x', namespace: 'ns', ...metadata }, spec, status };
}

function conds(...list: Cond[]): { conditions: Cond[] } {
  return { conditions: list };
}

const READY_DEPLOYMENT_CONDITIONS = conds(
  { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
  { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
);

function deployment(spec: Obj, status: Obj, metadata: Obj = { generation: 1 }): KubeObject {
  return obj(
    'apps/v1',
    'Deployment',
    { progressDeadlineSeconds: 600, ...spec },
    { observedGeneration: 1, ...READY_DEPLOYMENT_CONDITIONS, ...status },
    metadata,
  );
}

const fullDeployment = { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 };

function expectHealth(o: KubeObject, state: Health['state'], message?: string | RegExp): void {
  const h = objectHealth(o);
  expect(h.state, h.message).toBe(state);
  if (typeof message === 'string') expect(h.message).toBe(message);
  else if (message) expect(h.message).toMatch(message);
}

describe('generic rules, before any kind rule', () => {
  it('reports an object with a deletionTimestamp as terminating, even a ConfigMap', () => {
    expectHealth(obj('v1', 'ConfigMap', {}, {}, { deletionTimestamp: '2024-01-01T00:00:00Z' }), 'terminating');
    expectHealth(
      deployment({ replicas: 2 }, fullDeployment, { generation: 1, deletionTimestamp: '2024-01-01T00:00:00Z' }),
      'terminating',
      'scheduled for deletion',
    );
  });

  it('waits for the controller to observe the latest generation', () => {
    const d = deployment({ replicas: 2 }, { ...fullDeployment, observedGeneration: 2 }, { generation: 3 });
    expectHealth(d, 'progressing', 'waiting for the controller to observe generation 3');
  });

  it('skips the generation check when either field is missing', () => {
    expectHealth(deployment({ replicas: 2 }, fullDeployment, {}), 'ready');
    expectHealth(obj('example.com/v1', 'Widget', {}, {}, { generation: 4 }), 'ready');
  });

  it('uses Reconciling=True as progressing and Stalled=True as failed, whatever the kind', () => {
    const reconciling = conds({ type: 'Reconciling', status: 'True', reason: 'Scaling', message: 'adding nodes' });
    expectHealth(obj('example.com/v1', 'Cluster', {}, reconciling), 'progressing', 'Scaling: adding nodes');
    const stalled = conds({ type: 'Stalled', status: 'True', reason: 'BadConfig' });
    expectHealth(obj('v1', 'ConfigMap', {}, stalled), 'failed', 'BadConfig');
    expectHealth(deployment({ replicas: 2 }, { ...fullDeployment, ...stalled }), 'failed');
  });

  it('ignores Reconciling and Stalled when they are not True', () => {
    const quiet = conds({ type: 'Reconciling', status: 'False' }, { type: 'Stalled', status: 'Unknown' });
    expectHealth(obj('example.com/v1', 'Cluster', {}, quiet), 'ready');
  });
});

describe('kinds without a rule', () => {
  it.each(['ConfigMap', 'Secret', 'ServiceAccount'])('reports a core %s as ready', (kind) => {
    expectHealth(obj('v1', kind), 'ready');
  });

  it('reports RBAC objects and unknown custom resources without conditions as ready', () => {
    expectHealth(obj('rbac.authorization.k8s.io/v1', 'Role'), 'ready');
    expectHealth({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, 'ready');
  });

  it('follows a Ready condition: True is ready, False and Unknown are progressing with its reason', () => {
    expectHealth(obj('cert-manager.io/v1', 'Certificate', {}, conds({ type: 'Ready', status: 'True' })), 'ready');
    const pending = conds({ type: 'Ready', status: 'False', reason: 'Issuing', message: 'order pending' });
    expectHealth(obj('cert-manager.io/v1', 'Certificate', {}, pending), 'progressing', 'Issuing: order pending');
    const unknown = conds({ type: 'Ready', status: 'Unknown' });
    expectHealth(obj('cert-manager.io/v1', 'Certificate', {}, unknown), 'progressing', 'Ready is Unknown');
  });

  it('does not let a Ready condition override a kind rule (a Pod is judged by its phase first)', () => {
    const p = obj('v1', 'Pod', {}, { phase: 'Pending', ...conds({ type: 'Ready', status: 'True' }) });
    expectHealth(p, 'progressing');
  });

  it('ignores malformed conditions', () => {
    expectHealth(obj('example.com/v1', 'Widget', {}, { conditions: [null, 'Ready', { status: 'False' }] }), 'ready');
    expectHealth(obj('example.com/v1', 'Widget', {}, { conditions: 'Ready' }), 'ready');
  });
});

describe('Deployment', () => {
  it('is ready when every replica is updated, available and ready and both conditions agree', () => {
    expectHealth(deployment({ replicas: 2 }, fullDeployment), 'ready', 'Deployment is available. Replicas: 2');
  });

  it('defaults spec.replicas to 1', () => {
    const one = { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
    expectHealth(deployment({}, one), 'ready');
    expectHealth(deployment({}, { ...one, availableReplicas: 0 }), 'progressing', 'Available: 0/1');
  });

  it.each([
    [{ replicas: 1 }, 'Replicas: 1/2'],
    [{ updatedReplicas: 1 }, 'Updated: 1/2'],
    [{ replicas: 3 }, 'Pending termination: 1'],
    [{ availableReplicas: 1 }, 'Available: 1/2'],
    [{ readyReplicas: 1 }, 'Ready: 1/2'],
  ])('is progressing while %j', (override, message) => {
    expectHealth(deployment({ replicas: 2 }, { ...fullDeployment, ...override }), 'progressing', message);
  });

  it('reports the first shortfall in kstatus order (updated before available)', () => {
    const d = deployment({ replicas: 2 }, { replicas: 2, updatedReplicas: 1, availableReplicas: 0 });
    expectHealth(d, 'progressing', 'Updated: 1/2');
  });

  it('fails when the progress deadline is exceeded, whatever the counts', () => {
    const stuck = conds({
      type: 'Progressing',
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: 'ReplicaSet "web-1" has timed out progressing.',
    });
    expectHealth(
      deployment({ replicas: 2 }, { ...fullDeployment, ...stuck }),
      'failed',
      'Progress deadline exceeded: ReplicaSet "web-1" has timed out progressing.',
    );
  });

  it('waits for Progressing=True/NewReplicaSetAvailable when a deadline is set', () => {
    const rolling = conds(
      { type: 'Available', status: 'True' },
      { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' },
    );
    expectHealth(
      deployment({ replicas: 2 }, { ...fullDeployment, ...rolling }),
      'progressing',
      'ReplicaSet not Available',
    );
  });

  it('does not wait for Progressing when there is no deadline (unset or MaxInt32)', () => {
    const availableOnly = { ...fullDeployment, ...conds({ type: 'Available', status: 'True' }) };
    expectHealth(obj('apps/v1', 'Deployment', { replicas: 2 }, availableOnly), 'ready');
    expectHealth(deployment({ replicas: 2, progressDeadlineSeconds: 2 ** 31 - 1 }, availableOnly), 'ready');
    expectHealth(deployment({ replicas: 2, progressDeadlineSeconds: 600 }, availableOnly), 'progressing');
  });

  it('requires Available=True', () => {
    const unavailable = conds(
      { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
    );
    expectHealth(
      deployment({ replicas: 2 }, { ...fullDeployment, ...unavailable }),
      'progressing',
      'Deployment not Available',
    );
  });

  it('applies to extensions/v1beta1 Deployments too', () => {
    const d = obj('extensions/v1beta1', 'Deployment', { replicas: 2 }, { replicas: 1 });
    expectHealth(d, 'progressing', 'Replicas: 1/2');
  });

  it('scaled to zero is ready', () => {
    expectHealth(deployment({ replicas: 0 }, {}), 'ready');
  });
});

describe('ReplicaSet', () => {
  const full = { replicas: 3, fullyLabeledReplicas: 3, availableReplicas: 3, readyReplicas: 3 };
  const rs = (status: Obj) => obj('apps/v1', 'ReplicaSet', { replicas: 3 }, status);

  it('is ready when all replicas are labelled, available and ready', () => {
    expectHealth(rs(full), 'ready', 'ReplicaSet is available. Replicas: 3');
  });

  it.each([
    [{ fullyLabeledReplicas: 2 }, 'Labelled: 2/3'],
    [{ availableReplicas: 2 }, 'Available: 2/3'],
    [{ readyReplicas: 0 }, 'Ready: 0/3'],
    [{ replicas: 5 }, 'Pending termination: 2'],
  ])('is progressing while %j', (override, message) => {
    expectHealth(rs({ ...full, ...override }), 'progressing', message);
  });

  it('is progressing with a ReplicaFailure condition', () => {
    expectHealth(
      rs({ ...full, ...conds({ type: 'ReplicaFailure', status: 'True' }) }),
      'progressing',
      /Replica Failure/,
    );
  });
});

describe('StatefulSet', () => {
  const full = {
    replicas: 3,
    readyReplicas: 3,
    currentReplicas: 3,
    updatedReplicas: 3,
    currentRevision: 'db-1',
    updateRevision: 'db-1',
  };
  const sts = (status: Obj, spec: Obj = {}) => obj('apps/v1', 'StatefulSet', { replicas: 3, ...spec }, status);

  it('is ready when all replicas are ready and current on the update revision', () => {
    expectHealth(sts(full), 'ready', 'All replicas scheduled as expected. Replicas: 3');
  });

  it.each([
    [{ replicas: 2 }, 'Replicas: 2/3'],
    [{ readyReplicas: 2 }, 'Ready: 2/3'],
    [{ replicas: 4 }, 'Pending termination: 1'],
    [{ currentReplicas: 1 }, 'Current: 1/3'],
    [{ updateRevision: 'db-2' }, 'Waiting for updated revision to match current'],
  ])('is progressing while %j', (override, message) => {
    expectHealth(sts({ ...full, ...override }), 'progressing', message);
  });

  it('is ready under the OnDelete strategy whatever the counts', () => {
    expectHealth(sts({}, { updateStrategy: { type: 'OnDelete' } }), 'ready', /OnDelete/);
  });

  it('with a partition, waits only for the replicas at or above it', () => {
    const partitioned = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } };
    const rolling = { ...full, currentReplicas: 1, updatedReplicas: 1, updateRevision: 'db-2' };
    expectHealth(sts(rolling, partitioned), 'progressing', 'Updated (partition 1): 1/2');
    expectHealth(
      sts({ ...rolling, updatedReplicas: 2 }, partitioned),
      'ready',
      'Partition rollout complete (partition 1)',
    );
  });
});

describe('DaemonSet', () => {
  const full = {
    observedGeneration: 1,
    desiredNumberScheduled: 3,
    currentNumberScheduled: 3,
    updatedNumberScheduled: 3,
    numberAvailable: 3,
    numberReady: 3,
  };
  const ds = (status: Obj, metadata: Obj = { generation: 1 }) => obj('apps/v1', 'DaemonSet', {}, status, metadata);

  it('is ready when every desired pod is current, updated, available and ready', () => {
    expectHealth(ds(full), 'ready', 'All replicas scheduled as expected. Replicas: 3');
  });

  it.each([
    [{ currentNumberScheduled: 2 }, 'Current: 2/3'],
    [{ updatedNumberScheduled: 1 }, 'Updated: 1/3'],
    [{ numberAvailable: 0 }, 'Available: 0/3'],
    [{ numberReady: 2 }, 'Ready: 2/3'],
    [{ desiredNumberScheduled: undefined }, 'Missing .status.desiredNumberScheduled'],
  ])('is progressing while %j', (override, message) => {
    expectHealth(ds({ ...full, ...override }), 'progressing', message);
  });

  it('is progressing until the controller has recorded an observed generation', () => {
    expectHealth(ds({ ...full, observedGeneration: undefined }), 'progressing', /observedGeneration not found/);
    expectHealth(ds(full, {}), 'progressing', /generation not found/);
  });

  it('is ready with nothing to schedule', () => {
    expectHealth(ds({ observedGeneration: 1, desiredNumberScheduled: 0 }), 'ready');
  });
});

describe('Job and CronJob', () => {
  const job = (status: Obj, spec: Obj = {}) => obj('batch/v1', 'Job', { completions: 3, ...spec }, status);

  it('is ready once Complete=True', () => {
    expectHealth(job({ succeeded: 3, ...conds({ type: 'Complete', status: 'True' }) }), 'ready', /Succeeded: 3\/3/);
  });

  it('fails with the Failed condition reason and message', () => {
    const f = conds({
      type: 'Failed',
      status: 'True',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    expectHealth(
      job({ failed: 7, ...f }),
      'failed',
      'Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit',
    );
    expectHealth(job({ failed: 7, ...conds({ type: 'Failed', status: 'True' }) }), 'failed', 'Job failed: failed 7/3');
  });

  it('is ready when suspended, as kstatus, but only if spec.suspend is still true', () => {
    const suspended = conds({ type: 'Suspended', status: 'True' });
    expectHealth(job(suspended, { suspend: true }), 'ready', 'Job is suspended');
    expectHealth(job(suspended, { suspend: false }), 'progressing');
  });

  it('is progressing before it starts and while it runs', () => {
    expectHealth(job({}), 'progressing', 'Job not started');
    const running = { startTime: '2024-01-01T00:00:00Z', active: 2, succeeded: 1 };
    expectHealth(job(running), 'progressing', 'Job in progress. Succeeded: 1/3, active: 2, failed: 0');
  });

  it('ignores Complete and Failed conditions that are not True', () => {
    const c = conds({ type: 'Complete', status: 'False' }, { type: 'Failed', status: 'False' });
    expectHealth(job({ startTime: '2024-01-01T00:00:00Z', ...c }), 'progressing');
  });

  it('is ready for a CronJob', () => {
    expectHealth(obj('batch/v1', 'CronJob', { schedule: '* * * * *' }), 'ready');
  });
});

describe('PersistentVolumeClaim', () => {
  it('is ready once Bound and progressing in any other phase', () => {
    expectHealth(obj('v1', 'PersistentVolumeClaim', {}, { phase: 'Bound' }), 'ready');
    expectHealth(
      obj('v1', 'PersistentVolumeClaim', {}, { phase: 'Pending' }),
      'progressing',
      'PVC is not Bound: Pending',
    );
    expectHealth(obj('v1', 'PersistentVolumeClaim'), 'progressing', 'PVC is not Bound: unknown');
  });
});

describe('Pod', () => {
  const pod = (status: Obj) => obj('v1', 'Pod', {}, status);

  it('is ready when Succeeded, or Running with Ready=True', () => {
    expectHealth(pod({ phase: 'Succeeded' }), 'ready');
    expectHealth(pod({ phase: 'Running', ...conds({ type: 'Ready', status: 'True' }) }), 'ready', 'Pod is Ready');
  });

  it('fails when Failed (where kstatus says Current) or when a container crash-loops', () => {
    expectHealth(pod({ phase: 'Failed' }), 'failed');
    const looping = {
      phase: 'Running',
      ...conds({ type: 'Ready', status: 'False' }),
      containerStatuses: [
        { name: 'app', state: { waiting: { reason: 'CrashLoopBackOff' } } },
        { name: 'sidecar', state: { running: {} } },
        { name: 'proxy', state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    };
    expectHealth(pod(looping), 'failed', 'Containers in CrashLoop state: app,proxy');
  });

  it('is progressing while pending, unscheduled, not ready or not yet observed', () => {
    expectHealth(pod({ phase: 'Running' }), 'progressing', 'Pod is running but is not Ready');
    expectHealth(pod({ phase: 'Pending' }), 'progressing', 'Pod is in the Pending phase');
    const unschedulable = conds({
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: '0/3 nodes are available',
    });
    expectHealth(
      pod({ phase: 'Pending', ...unschedulable }),
      'progressing',
      'Pod has not been scheduled: 0/3 nodes are available',
    );
    expectHealth(pod({}), 'progressing', 'Pod phase not available');
    expectHealth(pod({ phase: 'Unknown' }), 'progressing', 'Pod phase is Unknown');
  });
});

describe('Service', () => {
  it('is ready for a ClusterIP service and a LoadBalancer with a cluster IP', () => {
    expectHealth(obj('v1', 'Service', { clusterIP: '10.0.0.1' }), 'ready');
    expectHealth(obj('v1', 'Service', {}), 'ready');
    expectHealth(obj('v1', 'Service', { type: 'LoadBalancer', clusterIP: '10.0.0.1' }), 'ready');
  });

  it('is progressing for a LoadBalancer without a cluster IP', () => {
    expectHealth(obj('v1', 'Service', { type: 'LoadBalancer' }), 'progressing', /ClusterIP not set/);
  });
});

describe('PodDisruptionBudget and CustomResourceDefinition', () => {
  it('reports a PDB whose generation is observed as ready, and one whose is not as progressing', () => {
    expectHealth(obj('policy/v1', 'PodDisruptionBudget', {}, { observedGeneration: 2 }, { generation: 2 }), 'ready');
    expectHealth(
      obj('policy/v1', 'PodDisruptionBudget', {}, { observedGeneration: 1 }, { generation: 2 }),
      'progressing',
    );
  });

  const crd = (...list: Cond[]) => obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', {}, conds(...list));

  it('is ready once Established', () => {
    expectHealth(crd({ type: 'NamesAccepted', status: 'True' }, { type: 'Established', status: 'True' }), 'ready');
  });

  it('is progressing while installing or before any condition', () => {
    expectHealth(
      crd({ type: 'Established', status: 'False', reason: 'Installing' }),
      'progressing',
      'Install in progress',
    );
    expectHealth(crd(), 'progressing');
  });

  it('fails when names are not accepted or establishing failed', () => {
    const conflict = { type: 'NamesAccepted', status: 'False', reason: 'ListKindConflict', message: 'taken' };
    expectHealth(
      crd(conflict, { type: 'Established', status: 'False', reason: 'NotAccepted' }),
      'failed',
      'ListKindConflict: taken',
    );
    expectHealth(crd({ type: 'Established', status: 'False', reason: 'NotAccepted' }), 'failed', 'NotAccepted');
  });
});

describe('healthKey and sameHealth', () => {
  it('changes when readiness or its message changes, not for unrelated status fields', () => {
    const a = deployment({ replicas: 2 }, { ...fullDeployment, readyReplicas: 1 });
    const b = deployment({ replicas: 2 }, { ...fullDeployment, readyReplicas: 1, collisionCount: 1 });
    const c = deployment({ replicas: 2 }, fullDeployment);
    expect(healthKey(a)).toBe(healthKey(b));
    expect(healthKey(a)).not.toBe(healthKey(c));
    expect(sameHealth(objectHealth(a), objectHealth(b))).toBe(true);
    expect(sameHealth(objectHealth(a), objectHealth(c))).toBe(false);
  });

  it('tells states apart even with equal messages', () => {
    expect(sameHealth({ state: 'ready', message: 'm' }, { state: 'progressing', message: 'm' })).toBe(false);
  });
});
