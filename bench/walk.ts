// The modules of src/ that one spec-change upgrade runs through, measured rather than read: the real operator (the
// one launcher, test/support/operator-process.ts) on a local plane (test/support/plane.ts), V8's precise coverage
// over the inspector reset once the CR is Deployed, the spec changed, and the coverage read once the CR shows the new
// revision Deployed. Prints the modules entered, by folder, and their count. Not a test; a few seconds on a warm plane.
//   node bench/walk.ts                 this checkout's dist/ (npm run build first)
//   WALK_ROOT=/other/checkout node bench/walk.ts   another checkout's build, on the same plane (to compare)
//   WALK_DETAIL=manager/ node bench/walk.ts         also the functions entered under a folder
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchOperator } from '../test/support/operator-process.ts';
import { startLocalPlane } from '../test/support/plane.ts';
import { run } from '../test/support/run.ts';
import { until } from '../test/support/until.ts';

const ROOT = resolve(import.meta.dirname, '..');
const TARGET = resolve(process.env.WALK_ROOT ?? ROOT);
const NS = 'walk';

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector(url: string) {
  const ws = new WebSocket(url);
  await new Promise((res, rej) => {
    ws.onopen = res;
    ws.onerror = rej;
  });
  let id = 0;
  const waiting = new Map<number, (r: { result?: unknown; error?: unknown }) => void>();
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: unknown };
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  };
  return {
    async send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const n = ++id;
      const reply = new Promise<{ result?: unknown; error?: unknown }>((res) => waiting.set(n, res));
      ws.send(JSON.stringify({ id: n, method, params }));
      const r = await reply;
      if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
      return r.result as T;
    },
    close: () => ws.close(),
  };
}

interface ScriptCoverage {
  readonly url: string;
  readonly functions: readonly {
    readonly functionName: string;
    readonly ranges: readonly { readonly count: number }[];
  }[];
}
/** WALK_DETAIL=manager/ also prints the functions entered in the modules under that folder. */
const detail = process.env.WALK_DETAIL;

const plane = await startLocalPlane({ root: ROOT, env: { ...process.env, TESTENV_NODES: '0' } });
const work = mkdtempSync(join(tmpdir(), 'walk-'));
const kubectl = (...args: string[]) => run(join(plane.bin, 'kubectl'), ['--kubeconfig', plane.kubeconfig, ...args], {});
let stop = async () => {};
try {
  await kubectl('apply', '-f', join(ROOT, 'config/crd/bases/'));
  await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/nginxes.demo.example.com');
  await kubectl('create', 'namespace', NS);
  const watchesFile = join(work, 'watches.yaml');
  writeFileSync(
    watchesFile,
    `- {group: demo.example.com, version: v1alpha1, kind: Nginx, chart: ${join(TARGET, 'charts/nginx')}}\n`,
  );
  const operator = launchOperator({
    root: TARGET,
    kubeconfig: plane.kubeconfig,
    watchesFile,
    helm: join(plane.bin, 'helm-v3'),
    args: ['--metrics-bind-address=0', '--health-probe-bind-address=0'],
    env: { ...process.env, WATCH_NAMESPACE: NS, NODE_OPTIONS: '--inspect=127.0.0.1:0' },
    logFile: join(work, 'operator.log'),
  });
  stop = async () => void (await operator.stop());
  const url = await until('the inspector URL', async () => /ws:\/\/\S+/.exec(operator.output())?.[0], {
    timeoutMs: 30_000,
  });
  const cdp = await inspector(url);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const cr = (replicaCount: number) =>
    `apiVersion: demo.example.com/v1alpha1\nkind: Nginx\nmetadata: {name: web, namespace: ${NS}}\nspec: {replicaCount: ${replicaCount}}\n`;
  const revision = async () =>
    (await kubectl('get', 'nginx', 'web', '-n', NS, '-o', 'jsonpath={.status.deployedRelease.revision}')).trim();
  const apply = (text: string) => {
    const file = join(work, 'cr.yaml');
    writeFileSync(file, text);
    return kubectl('apply', '-f', file);
  };
  await apply(cr(1));
  await until('revision 1', async () => (await revision()) === '1', { timeoutMs: 60_000 });
  // Settled: the install's own follow-up reconciles are done before the window opens.
  await until('quiet', async () => operator.output().trim().split('\n').pop()?.includes('Reconciled'), {
    timeoutMs: 10_000,
  }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 2000));
  await cdp.send('Profiler.takePreciseCoverage'); // resets the counters: the window opens here
  await apply(cr(2));
  await until('revision 2', async () => (await revision()) === '2', { timeoutMs: 60_000, everyMs: 50 });
  const { result } = await cdp.send<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
  cdp.close();
  const dist = join(TARGET, 'dist');
  const entered = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(`${dist}/`)) continue;
    const ran = script.functions.filter((f) => (f.ranges[0]?.count ?? 0) > 0);
    if (ran.length === 0) continue;
    const file = relative(dist, path).replace(/\.js$/, '.ts');
    entered.add(file);
    if (detail && file.startsWith(detail))
      console.log(`${file}: ${ran.map((f) => f.functionName || '(anonymous)').join(', ')}`);
  }
  const files = [...entered].sort();
  const folders = new Map<string, string[]>();
  for (const f of files) {
    const folder = f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.';
    folders.set(folder, [...(folders.get(folder) ?? []), f.slice(folder.length + 1)]);
  }
  console.log(
    `## One spec-change upgrade through ${relative(process.cwd(), TARGET) || '.'}: ${files.length} modules of src/ in ${folders.size} folders\n`,
  );
  console.log('| folder | modules entered |\n|---|---|');
  for (const [folder, names] of folders) console.log(`| ${folder}/ | ${names.join(', ')} |`);
} finally {
  await stop().catch(() => undefined);
  await plane.stop().catch(() => undefined);
}
