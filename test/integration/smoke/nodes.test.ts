// Proves the cluster runs workloads on Nodes: the scheduler binds Pods, kube-controller-manager's workload
// controllers act on them, and something reports their status (on the local plane kwok's fake kubelets, see
// hack/testenv/kwok-stages.yaml; elsewhere real kubelets). The failing workloads carry both the local plane's
// `testenv.local/fail` annotation and a command that exits 1, so they fail on either. Each test makes its own
// namespace. Skipped, saying so, on a cluster without a Ready Node (TESTENV_NODES=0, or such a TEST_CLUSTER=existing).
import type { V1Deployment, V1Job, V1PodSpec, V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, inject, it } from 'vitest';
import { readyNodeCount } from '../../support/cluster-config.js';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';

const { nodes, mode } = inject('cluster');
const FAIL = 'testenv.local/fail';
const DELAY = 'testenv.local/delay-ms';
const IMAGE = 'busybox:1.37';
const SLOW = { timeout: 60_000, interval: 250 };

function podTemplate(
  app: string,
  opts: { command?: string; annotations?: Record<string, string>; spec?: Partial<V1PodSpec> } = {},
): V1PodTemplateSpec {
  return {
    metadata: { labels: { app }, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', opts.command ?? 'sleep 3600'] }],
      ...opts.spec,
    },
  };
}
function deployment(name: string, replicas: number, template: V1PodTemplateSpec): V1Deployment {
  return {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template },
  };
}
function job(name: string, template: V1PodTemplateSpec, backoffLimit = 0): V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit,
      template: { ...template, spec: { ...(template.spec as V1PodSpec), restartPolicy: 'Never' } },
    },
  };
}
const condition = (conds: { type: string; status: string; reason?: string }[] | undefined, type: string) =>
  conds?.find((c) => c.type === type);

/** Runs `body` with a fresh namespace that is deleted afterwards (without waiting). */
async function inNamespace(prefix: string, body: (kube: TestKube, ns: string) => Promise<void>): Promise<void> {
  const kube = testKube();
  const [ns, deleteNs] = await createTestNamespace(kube, prefix);
  try {
    await body(kube, ns);
  } finally {
    await deleteNs();
  }
}

const title =
  nodes > 0
    ? `workloads on the cluster's ${nodes} Ready node(s)`
    : 'workloads on nodes: SKIPPED, the cluster has no Ready Node (TESTENV_NODES=0, or TEST_CLUSTER=existing without nodes)';

describe.skipIf(nodes === 0)(title, () => {
  it('has the Nodes Ready and schedulable', async () => {
    const kube = testKube();
    expect(readyNodeCount((await kube.core.listNode()).items)).toBeGreaterThanOrEqual(nodes);
  });

  it('rolls out a Deployment: Available, with Ready pods bound to nodes and given IPs', async () => {
    await inNamespace('nodes-deploy', async (kube, ns) => {
      await kube.apps.createNamespacedDeployment({ namespace: ns, body: deployment('web', 2, podTemplate('web')) });
      await expect
        .poll(async () => {
          const d = await kube.apps.readNamespacedDeployment({ name: 'web', namespace: ns });
          return [d.status?.availableReplicas, condition(d.status?.conditions, 'Available')?.status];
        }, SLOW)
        .toEqual([2, 'True']);
      const pods = (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' })).items;
      expect(pods).toHaveLength(2);
      for (const p of pods) {
        expect(p.spec?.nodeName).toBeTruthy();
        expect(p.status?.phase).toBe('Running');
        expect(p.status?.podIP).toBeTruthy();
        expect(condition(p.status?.conditions, 'Ready')?.status).toBe('True');
        expect(p.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', ready: true, restartCount: 0 });
        expect(p.status?.containerStatuses?.[0]?.state?.running?.startedAt).toBeTruthy();
      }
    });
  });

  it('completes a Job', async () => {
    await inNamespace('nodes-job', async (kube, ns) => {
      await kube.batch.createNamespacedJob({
        namespace: ns,
        body: job('done', podTemplate('done', { command: 'true' })),
      });
      await expect
        .poll(async () => {
          const j = await kube.batch.readNamespacedJob({ name: 'done', namespace: ns });
          return [condition(j.status?.conditions, 'Complete')?.status, j.status?.succeeded];
        }, SLOW)
        .toEqual(['True', 1]);
      const [pod] = (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=done' })).items;
      expect(pod?.status?.phase).toBe('Succeeded');
      expect(pod?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);
    });
  });

  it(`fails a Job whose pod fails (${FAIL}): Failed, BackoffLimitExceeded with backoffLimit 0`, async () => {
    await inNamespace('nodes-job-fail', async (kube, ns) => {
      const template = podTemplate('bad', { command: 'exit 1', annotations: { [FAIL]: 'true' } });
      await kube.batch.createNamespacedJob({ namespace: ns, body: job('bad', template, 0) });
      await expect
        .poll(async () => {
          const j = await kube.batch.readNamespacedJob({ name: 'bad', namespace: ns });
          const failed = condition(j.status?.conditions, 'Failed');
          return [failed?.status, failed?.reason, j.status?.succeeded ?? 0];
        }, SLOW)
        .toEqual(['True', 'BackoffLimitExceeded', 0]);
    });
  });

  it(`never makes a Deployment whose pods fail (${FAIL}) Available: they crash-loop, not Ready`, async () => {
    await inNamespace('nodes-deploy-fail', async (kube, ns) => {
      const body = deployment('crash', 1, podTemplate('crash', { command: 'exit 1', annotations: { [FAIL]: 'true' } }));
      // A short progress deadline gives the controller's verdict a definite moment: not progressing, not available.
      if (body.spec) body.spec.progressDeadlineSeconds = 5;
      await kube.apps.createNamespacedDeployment({ namespace: ns, body });
      await expect
        .poll(async () => {
          const [p] = (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=crash' })).items;
          const c = p?.status?.containerStatuses?.[0];
          return [
            c?.state?.waiting?.reason,
            (c?.restartCount ?? 0) > 0,
            condition(p?.status?.conditions, 'Ready')?.status,
          ];
        }, SLOW)
        .toEqual(['CrashLoopBackOff', true, 'False']);
      await expect
        .poll(async () => {
          const d = await kube.apps.readNamespacedDeployment({ name: 'crash', namespace: ns });
          return condition(d.status?.conditions, 'Progressing')?.reason;
        }, SLOW)
        .toBe('ProgressDeadlineExceeded');
      const d = await kube.apps.readNamespacedDeployment({ name: 'crash', namespace: ns });
      expect(d.status?.availableReplicas ?? 0).toBe(0);
      expect(condition(d.status?.conditions, 'Available')?.status).toBe('False');
    });
  });

  it('deletes a namespace that holds running pods (the pods go, then the namespace)', async () => {
    const kube = testKube();
    const [ns, deleteNs] = await createTestNamespace(kube, 'nodes-ns');
    try {
      // The default grace period (30 s) on purpose: the namespace controller waits about half of it, as anywhere.
      const template = podTemplate('busy', { spec: { terminationGracePeriodSeconds: 30 } });
      await kube.apps.createNamespacedDeployment({ namespace: ns, body: deployment('busy', 2, template) });
      await expect
        .poll(
          async () => (await kube.apps.readNamespacedDeployment({ name: 'busy', namespace: ns })).status?.readyReplicas,
          SLOW,
        )
        .toBe(2);
      await kube.core.deleteNamespace({ name: ns });
      await expect
        .poll(() => isGone(() => kube.core.readNamespace({ name: ns })), { timeout: 90_000, interval: 250 })
        .toBe(true);
    } finally {
      await deleteNs();
    }
  });

  it('rolls out a StatefulSet and a DaemonSet', async () => {
    await inNamespace('nodes-sts-ds', async (kube, ns) => {
      await kube.core.createNamespacedService({
        namespace: ns,
        body: { metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 80 }] } },
      });
      await kube.apps.createNamespacedStatefulSet({
        namespace: ns,
        body: {
          metadata: { name: 'db' },
          spec: {
            replicas: 2,
            serviceName: 'db',
            selector: { matchLabels: { app: 'db' } },
            template: podTemplate('db'),
          },
        },
      });
      await kube.apps.createNamespacedDaemonSet({
        namespace: ns,
        body: {
          metadata: { name: 'agent' },
          spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent') },
        },
      });
      await expect
        .poll(async () => {
          const s = (await kube.apps.readNamespacedStatefulSet({ name: 'db', namespace: ns })).status;
          return [s?.readyReplicas, s?.currentRevision === s?.updateRevision];
        }, SLOW)
        .toEqual([2, true]);
      await expect
        .poll(async () => {
          const s = (await kube.apps.readNamespacedDaemonSet({ name: 'agent', namespace: ns })).status;
          return s && s.desiredNumberScheduled > 0 && s.numberReady === s.desiredNumberScheduled;
        }, SLOW)
        .toBe(true);
      const ds = (await kube.apps.readNamespacedDaemonSet({ name: 'agent', namespace: ns })).status;
      // Every kwok Node is untainted, so the local plane runs one daemon pod on each.
      if (mode === 'local') expect(ds?.desiredNumberScheduled).toBe(nodes);
      const pods = (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=db' })).items;
      expect(pods.map((p) => p.metadata?.name).sort()).toEqual(['db-0', 'db-1']);
    });
  });

  // The delay annotation is the local plane's (kwok's stages); a real kubelet ignores it.
  it.skipIf(mode !== 'local')(`holds a pod back from Ready and from completing for ${DELAY}`, async () => {
    await inNamespace('nodes-delay', async (kube, ns) => {
      const template = podTemplate('slow', { command: 'true', annotations: { [DELAY]: '3000' } });
      await kube.batch.createNamespacedJob({ namespace: ns, body: job('slow', template) });
      // Running (it has a start time) but neither Ready nor done while the delay lasts.
      await expect
        .poll(async () => {
          const [p] = (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=slow' })).items;
          return [p?.status?.phase, condition(p?.status?.conditions, 'Ready')?.status];
        }, SLOW)
        .toEqual(['Running', 'False']);
      await expect
        .poll(
          async () => (await kube.batch.readNamespacedJob({ name: 'slow', namespace: ns })).status?.completionTime,
          SLOW,
        )
        .toBeTruthy();
      const j = await kube.batch.readNamespacedJob({ name: 'slow', namespace: ns });
      const [p] = (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=slow' })).items;
      const started = new Date(p?.status?.startTime ?? 0).getTime();
      const completed = new Date(j.status?.completionTime ?? 0).getTime();
      // API times have whole seconds: 3000 ms shows as at least 2 s.
      expect(completed - started).toBeGreaterThanOrEqual(2000);
    });
  });
});
