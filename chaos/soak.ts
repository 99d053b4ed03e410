// `make soak`: the real operator with SOAK_CRS CRs (default 500) of the sample chart for SOAK_MINUTES (default 60)
// under light churn (a spec change, delete or create every 5 s), printing RSS and V8 heap every minute and, at the
// end, the slope of each over the last half of the run. Not part of `make test`. Starts and stops its own plane.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { imageEnv, imageNodeOptions } from '../test/support/operator-process.ts';
import { memMiB } from '../test/support/proc.ts';
import { until } from '../test/support/until.ts';
import {
  createNamespace,
  crs,
  deployedAtGeneration,
  installSampleCrd,
  kubeFor,
  pendingRecords,
  releaseRecords,
} from './kit/kube.ts';
import { startOperator } from './kit/operator.ts';
import { sleep, startPlane } from './kit/plane.ts';

const ROOT = resolve(import.meta.dirname, '..');
const NS = 'chaos-soak';
const CRS = Number(process.env.SOAK_CRS ?? 500);
const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const CHURN_EVERY_MS = 5_000;

/** Least-squares slope of y over x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

async function heapMiB(metricsAddr: string | undefined): Promise<number> {
  if (!metricsAddr) return Number.NaN;
  const text = await (await fetch(`http://${metricsAddr}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]) / 2 ** 20;
}

async function main(): Promise<void> {
  if (!Number.isInteger(CRS) || CRS < 1) throw new Error(`SOAK_CRS=${process.env.SOAK_CRS} is not a positive integer`);
  if (!(MINUTES > 0)) throw new Error(`SOAK_MINUTES=${process.env.SOAK_MINUTES} is not a positive number`);
  const t0 = performance.now();
  const say = (s: string) => process.stderr.write(`soak [${((performance.now() - t0) / 1000).toFixed(0)}s] ${s}\n`);
  const work = mkdtempSync(join(tmpdir(), 'soak-'));
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort(new Error('interrupted')));
  const plane = await startPlane({ root: ROOT, nodes: 0 });
  const k = kubeFor(plane.kubeconfig, join(plane.bin, 'kubectl'));
  const watches = join(work, 'watches.yaml');
  writeFileSync(watches, `- {group: demo.example.com, version: v1alpha1, kind: Nginx, chart: ${ROOT}/charts/nginx}\n`);
  await installSampleCrd(k, ROOT);
  await createNamespace(k, NS);
  const op = startOperator({
    root: ROOT,
    kubeconfig: plane.kubeconfig,
    watchesFile: watches,
    helm: join(plane.bin, 'helm-v3'),
    args: ['--max-concurrent-reconciles=2'],
    // The image's Node flags and malloc setting.
    env: {
      WATCH_NAMESPACE: NS,
      NODE_OPTIONS: imageNodeOptions(ROOT),
      MALLOC_ARENA_MAX: imageEnv(ROOT, 'MALLOC_ARENA_MAX'),
      MALLOC_MMAP_THRESHOLD_: imageEnv(ROOT, 'MALLOC_MMAP_THRESHOLD_'),
      MALLOC_TRIM_THRESHOLD_: imageEnv(ROOT, 'MALLOC_TRIM_THRESHOLD_'),
    },
    logFile: join(work, 'operator.log'),
  });
  const c = crs(k, NS);
  const live = new Set<string>();
  let next = 0;
  const counts = { patched: 0, deleted: 0, created: 0 };
  try {
    say(`${CRS} CRs, ${MINUTES} min, churn every ${CHURN_EVERY_MS / 1000} s; logs in ${work}`);
    for (let i = 0; i < CRS; i++) {
      const name = `s${next++}`;
      await c.create(name, { replicaCount: 1 });
      live.add(name);
    }
    await until('every CR Deployed', async () => (await c.list()).filter(deployedAtGeneration).length >= CRS, {
      timeoutMs: CRS * 1_500,
      everyMs: 2_000,
      signal: abort.signal,
    });
    say(`all ${CRS} Deployed; soaking`);
    const metricsAddr = () => op.logged('Serving metrics')[0]?.address as string | undefined;
    const samples: { min: number; rss: number; heap: number }[] = [];
    const start = performance.now();
    let lastSample = -1;
    while (performance.now() - start < MINUTES * 60_000 && !abort.signal.aborted) {
      const names = [...live];
      const pick = names[Math.floor(Math.random() * names.length)] ?? '';
      const r = Math.random();
      if (r < 0.7) {
        await c.patchSpec(pick, { replicaCount: 1 + Math.floor(Math.random() * 3) });
        counts.patched++;
      } else if (r < 0.85) {
        await c.delete(pick);
        live.delete(pick);
        counts.deleted++;
      } else {
        const name = `s${next++}`;
        await c.create(name, { replicaCount: 1 });
        live.add(name);
        counts.created++;
      }
      const minute = Math.floor((performance.now() - start) / 60_000);
      if (minute > lastSample) {
        lastSample = minute;
        const s = { min: minute, rss: memMiB(op.pid), heap: await heapMiB(metricsAddr()).catch(() => Number.NaN) };
        samples.push(s);
        say(`minute ${minute}: ${live.size} CRs, RSS ${s.rss.toFixed(1)} MiB, heap used ${s.heap.toFixed(1)} MiB`);
      }
      await sleep(CHURN_EVERY_MS, abort.signal);
    }
    const half = samples.slice(Math.floor(samples.length / 2));
    const perHour = (key: 'rss' | 'heap') => slope(half.map((s) => ({ x: s.min / 60, y: s[key] })));
    await until(
      'every live CR Deployed at its generation, no release pending',
      async () => {
        const list = await c.list();
        const { pending } = pendingRecords(await releaseRecords(k, NS));
        return list.length === live.size && list.every(deployedAtGeneration) && pending.length === 0;
      },
      { timeoutMs: 300_000, everyMs: 2_000, signal: abort.signal },
    );
    const rss = samples.map((s) => s.rss);
    console.log(`\n### soak: ${CRS} CRs, ${MINUTES} min\n`);
    console.log('| figure | value |\n|---|---|');
    console.log(
      `| churn: spec changes / deletes / creates | ${counts.patched} / ${counts.deleted} / ${counts.created} |`,
    );
    console.log(
      `| RSS first / last / max | ${rss[0]?.toFixed(1)} / ${rss.at(-1)?.toFixed(1)} / ${Math.max(...rss).toFixed(1)} MiB |`,
    );
    console.log(`| RSS slope over the last half (${half.length} samples) | ${perHour('rss').toFixed(2)} MiB/h |`);
    console.log(`| heap used first / last | ${samples[0]?.heap.toFixed(1)} / ${samples.at(-1)?.heap.toFixed(1)} MiB |`);
    console.log(`| heap slope over the last half | ${perHour('heap').toFixed(2)} MiB/h |`);
    console.log(`| at the end | every live CR Deployed at its generation, no release pending |`);
  } finally {
    await op.stop();
    await plane.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
