// The readiness rules for workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job and CronJob), after kstatus.
// The generic rules and the other kinds are in rules.test.ts.
import { describe, it } from 'vitest';
import { conds, deployment, expectHealth, fullDeployment, type Obj, obj } from '../../test/support/readiness.js';

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
