// The readiness rules: the generic ones (terminating, observed generation, Reconciling/Stalled), kinds without a rule,
// PersistentVolumeClaim, Pod, Service, PodDisruptionBudget and CustomResourceDefinition, and healthKey/sameHealth.
// The workload kinds are in rules-workloads.test.ts.
import { describe, expect, it } from 'vitest';
import {
  type Cond,
  conds,
  deployment,
  expectHealth,
  fullDeployment,
  type Obj,
  obj,
} from '../../test/support/readiness.js';
import { healthKey, objectHealth, sameHealth } from './rules.js';

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
