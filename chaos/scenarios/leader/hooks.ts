// Helpers of the "leader" chaos scenario: the Lease's holder, and a loop that marks the slow-hook chart's hook Jobs
// complete (their pods fit no node, so helm waits for them until a test completes them, as the integration tests do).
// Used by index.ts; writes only the status of Jobs labelled test.helm-operator/hook=true.
import { BatchV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Kube } from '../../kit/kube.ts';

/** The Lease's holderIdentity, or undefined while there is no Lease. */
export async function leaseHolder(k: Kube, namespace: string, name: string): Promise<string | undefined> {
  try {
    return (await k.coordination.readNamespacedLease({ name, namespace })).spec?.holderIdentity ?? undefined;
  } catch {
    return undefined;
  }
}

/** Marks each incomplete hook Job in `namespace` complete; returns how many it completed. */
async function completeHookJobs(batch: BatchV1Api, namespace: string): Promise<number> {
  const jobs = await batch.listNamespacedJob({ namespace, labelSelector: 'test.helm-operator/hook=true' });
  let done = 0;
  for (const job of jobs.items) {
    if (job.status?.conditions?.some((c) => c.type === 'Complete')) continue;
    const now = new Date();
    const condition = (type: string) => ({ type, status: 'True', lastProbeTime: now, lastTransitionTime: now });
    job.status = {
      ...job.status,
      startTime: job.status?.startTime ?? now,
      completionTime: now,
      succeeded: 1,
      active: 0,
      conditions: [condition('SuccessCriteriaMet'), condition('Complete')],
    };
    await batch.replaceNamespacedJobStatus({ name: job.metadata?.name ?? '', namespace, body: job });
    done++;
  }
  return done;
}

/** Completes the hook Jobs of `namespace` every 200 ms until the returned stop is awaited; counts them. */
export function hookCompleter(kubeconfig: string, namespace: string): { stop(): Promise<number> } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const batch = kc.makeApiClient(BatchV1Api);
  let completed = 0;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      completeHookJobs(batch, namespace).then(
        (n) => {
          completed += n;
        },
        () => undefined, // a conflict or a Job deleted meanwhile: the next round tries again
      ),
    );
  }, 200);
  return {
    async stop() {
      clearInterval(timer);
      await running;
      return completed;
    },
  };
}
