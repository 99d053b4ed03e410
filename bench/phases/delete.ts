// Phase 8 of the bench: every bulk CR deleted at once; the time until all are gone, and meanwhile the CPU of the
// operator, its helm and the plane's processes, and the API server's requests and watch events.
// Called by operator-bench.ts and bench/scale.ts.

import { join } from 'node:path';
import { requestWindow } from '../api-requests.ts';
import { opPids } from '../fleet.ts';
import { actAndWait, env, GVR, log, NS } from '../kit.ts';
import { cpuWindow, planePids } from '../proc.ts';
import type { BenchContext } from './context.ts';

export async function bulkDelete(b: BenchContext) {
  log(`phase 8: ${b.names.length} CRs deleted at once`);
  const requests = await requestWindow(b.scrape);
  // BENCH_PPROF_DIR: kube-apiserver's CPU profile over the first seconds of the deletes (`go tool pprof -top`).
  const profiled = env.BENCH_PPROF_DIR
    ? b
        .profileApiserver(6, join(env.BENCH_PPROF_DIR, 'apiserver-delete.pprof'))
        .catch((e: unknown) => log(`pprof: ${e}`))
    : undefined;
  const window = cpuWindow({ ...opPids(b.o), apiserver: b.apiserver, ...planePids(b.dir) });
  const remove = await actAndWait(
    b.bulkCrs,
    `${b.names.length} CRs to be gone`,
    [...b.names],
    (name) => b.custom.deleteNamespacedCustomObject({ ...GVR, namespace: NS, name }),
    (_name, c) => c === undefined,
  );
  const cpu = window.end().cpu;
  await profiled;
  const api = await requests.end();
  log(`delete all, API requests and watch events by resource: ${api.lines.slice(0, 16).join(', ')}`);
  return { ...remove, cpu, api };
}
