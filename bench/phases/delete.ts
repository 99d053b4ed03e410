// Phase 8 of the bench: every bulk CR deleted at once; the time until all are gone, and the CPU meanwhile.
// Called by operator-bench.ts.

import { opPids } from '../fleet.ts';
import { actAndWait, CRS, GVR, log, NS } from '../kit.ts';
import { cpuWindow } from '../proc.ts';
import type { BenchContext } from './context.ts';

export async function bulkDelete(b: BenchContext) {
  log(`phase 8: ${CRS} CRs deleted at once`);
  const window = cpuWindow({ ...opPids(b.o), apiserver: b.apiserver });
  const remove = await actAndWait(
    b.bulkCrs,
    `${CRS} CRs to be gone`,
    [...b.names],
    (name) => b.custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name }),
    (_name, c) => c === undefined,
  );
  return { ...remove, cpu: window.end().cpu };
}
