// Phase 7 of the bench: a value changed in every bulk CR's spec at once; the time until each shows a new revision
// Deployed, and the CPU until helm is quiet again. Called by operator-bench.ts.

import { opPids } from '../fleet.ts';
import { actAndWait, CRS, deployed, GVR, helmQuiet, log, NS, revisionOf, UPGRADE_VALUES } from '../kit.ts';
import { cpuWindow } from '../proc.ts';
import type { BenchContext } from './context.ts';

export async function bulkUpgrade(b: BenchContext) {
  const { o, names } = b;
  log(`phase 7: ${CRS} CRs upgraded at once (spec ${JSON.stringify(UPGRADE_VALUES)})`);
  const revisions = new Map(names.map((n) => [n, revisionOf(b.bulkCrs.get(n) ?? {})]));
  const window = cpuWindow({ ...opPids(o), apiserver: b.apiserver });
  const upgrade = await actAndWait(
    b.bulkCrs,
    `${CRS} CRs to be upgraded`,
    [...names],
    (name) =>
      b.custom.patchNamespacedCustomObject({
        ...GVR,
        namespace: NS,
        name,
        body: [{ op: 'add', path: '/spec', value: UPGRADE_VALUES }],
      }),
    (name, c) => c !== undefined && deployed(c) && revisionOf(c) > (revisions.get(name) ?? 0),
  );
  await helmQuiet(o, 'the upgraded CRs to settle');
  return { ...upgrade, cpu: window.end().cpu };
}
