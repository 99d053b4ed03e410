// Phase 1 of the bench: BENCH_SEQUENTIAL CRs created one after another, create→Deployed latency each; then deleted
// one after another, delete→gone latency each (a delete alone: no batch to join), all gone before the next phase.
// Called by operator-bench.ts.
import type { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { watchCRs } from '../cr-watch.ts';
import { allDone, createAndWait, GVR, log, NS, SEQUENTIAL, signal } from '../kit.ts';

export async function sequentialCreates(
  kc: KubeConfig,
  custom: CustomObjectsApi,
  path: string,
): Promise<{ creates: number[]; deletes: number[] }> {
  log(`phase 1: ${SEQUENTIAL} CRs, one at a time`);
  const seq: number[] = [];
  const seqCrs = await watchCRs({ kc, path, phase: 'seq', signal });
  for (let i = 1; i <= SEQUENTIAL; i++)
    seq.push(...(await createAndWait(custom, seqCrs, 'seq', [`seq-${i}`], 1)).latencies);
  const seqNames = Array.from({ length: SEQUENTIAL }, (_, i) => `seq-${i + 1}`);
  const deletes: number[] = [];
  for (const name of seqNames) {
    const sent = performance.now();
    await custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name });
    const gone = await allDone(seqCrs, `${name} to be deleted`, [name], (_n, c) => c === undefined);
    deletes.push((gone.get(name) ?? Number.NaN) - sent);
  }
  seqCrs.close();
  return { creates: seq, deletes };
}
