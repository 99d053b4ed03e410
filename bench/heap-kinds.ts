// Where one replica's memory goes: a local control plane, the real operator (the image's Node flags, the default
// log level, 2 workers), HEAP_CRS CRs of charts/nginx created at once and Deployed, HEAP_SETTLE_S seconds to settle;
// then its RSS and a heap snapshot (SIGUSR2), printed as retained size by holder (bench/heap-retained.ts). Not a
// test; progress to stderr, the table to stdout. Starts and stops only its own plane and operator. See
// docs/contributing.md, "Where the memory goes".
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { startLocalPlane } from '../test/support/plane.ts';
import { memMiB } from '../test/support/proc.ts';
import { until } from '../test/support/until.ts';
import { watchCRs } from './cr-watch.ts';
import { retainedByHolder, retainedTable } from './heap-retained.ts';
import {
  allDone,
  createAndWait,
  deployed,
  env,
  GVR,
  log,
  MAIN,
  NS,
  noteOperatorExit,
  ROOT,
  run,
  signal,
} from './kit.ts';
import { startOperator } from './operator-process.ts';

const CRS = Number(env.HEAP_CRS ?? 300);
const SETTLE_S = Number(env.HEAP_SETTLE_S ?? 40);
/** More Node flags for the operator, e.g. to try a V8 setting. */
const NODE_FLAGS = env.HEAP_NODE_OPTIONS ?? '';

async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  const work = mkdtempSync(join(tmpdir(), 'heap-kinds-'));
  const load = loadavg()[0] ?? 0;
  log('starting the control plane');
  const plane = await startLocalPlane({ root: ROOT, env: { ...env, TESTENV_NODES: env.TESTENV_NODES ?? '0' } });
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    const kubectl = (...args: string[]) => run(join(plane.bin, 'kubectl'), args, { KUBECONFIG: plane.kubeconfig });
    await kubectl('apply', '-f', 'config/crd/bases/');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/nginxes.demo.example.com');
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
    const path = `/apis/${GVR.group}/${GVR.version}/namespaces/${NS}/${GVR.plural}`;
    const crs = await watchCRs({ kc, path, phase: 'heap', signal });
    const op = startOperator({
      root: ROOT,
      helm: join(plane.bin, env.BENCH_HELM || 'helm-v3'),
      work,
      kubeconfig: plane.kubeconfig,
      watch: { group: GVR.group, version: GVR.version, kind: 'Nginx', chart: 'charts/nginx' },
      reconcilePeriod: env.BENCH_RECONCILE_PERIOD || '30s',
      maxConcurrent: env.BENCH_MAX_CONCURRENT || '2',
      logLevel: 'default',
      env: { ...env, BENCH_NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${work} ${NODE_FLAGS}` },
      onExit: noteOperatorExit,
    });
    try {
      const names = Array.from({ length: CRS }, (_, i) => `heap-${String(i + 1).padStart(4, '0')}`);
      log(`creating ${CRS} CRs`);
      const custom = kc.makeApiClient(CustomObjectsApi);
      const t0 = performance.now();
      await createAndWait(custom, crs, 'heap', names, 50);
      await allDone(crs, 'all Deployed', names, (_n, c) => deployed(c));
      log(`all ${CRS} Deployed in ${((performance.now() - t0) / 1000).toFixed(1)} s; settling ${SETTLE_S} s`);
      await sleep(SETTLE_S * 1000, undefined, { signal });
      const rss = memMiB(op.pid);
      const anon = memMiB(op.pid, 'RssAnon');
      const file = memMiB(op.pid, 'RssFile');
      const heap = await heapFigures(op.stats.metrics);
      process.kill(op.pid, 'SIGUSR2');
      // Complete once its size stopped changing for a second.
      let last = -1;
      const snapshot = await until(
        'the heap snapshot',
        () => {
          const f = readdirSync(work).find((n) => n.endsWith('.heapsnapshot'));
          const size = f === undefined ? -1 : statSync(join(work, f)).size;
          const done = f !== undefined && size > 0 && size === last;
          last = size;
          return done ? join(work, f) : undefined;
        },
        { timeoutMs: 300_000, everyMs: 1_000 },
      );
      const r = retainedByHolder(snapshot);
      const split = `anonymous ${anon.toFixed(1)} + file-backed ${file.toFixed(1)}`;
      const head = `${CRS} CRs settled: RSS ${rss.toFixed(1)} MiB (${split}), ${heap}, load ${load.toFixed(1)} at start, snapshot ${snapshot}`;
      process.stdout.write(`${head}\n\n${retainedTable(r, 'retained by holder')}\n`);
    } finally {
      crs.close(); // an open watch would keep this process alive after a failure
      await op.stop();
    }
  } finally {
    await plane.stop();
  }
}

/** V8's heap used and total and the external memory, from the operator's /metrics (before the snapshot's GC). */
async function heapFigures(address: string | undefined): Promise<string> {
  if (address === undefined) return 'heap figures unknown (no metrics address logged)';
  const body = await (await fetch(`http://${address}/metrics`)).text();
  const mib = (name: string) => {
    const line = body.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? '?' : (Number(line.split(' ')[1]) / 1024 / 1024).toFixed(1);
  };
  return `heap used ${mib('nodejs_heap_size_used_bytes')} / total ${mib('nodejs_heap_size_total_bytes')} MiB, external ${mib('nodejs_external_memory_bytes')} MiB`;
}

main().catch((err: unknown) => {
  process.stderr.write(`heap-kinds: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
