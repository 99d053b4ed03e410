// `make bench-cli`: how fast the `helm-operator` CLI answers: each command run BENCH_CLI_RUNS times (10) after one
// warm-up run, printed as a markdown table of wall time (median, p90) and CPU (the child's user+system, median).
// `node bench/cli-start.ts [MAIN.js …]` compares builds (default dist/cmd/main.js); needs no cluster; helm rows need
// helm (HELM_BINARY, else helm on PATH) and are skipped, saying so, without it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_CLI_RUNS || 10);
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error(`BENCH_CLI_RUNS=${process.env.BENCH_CLI_RUNS}: a whole number`);
const mains = process.argv.slice(2).map((m) => resolve(m));
if (mains.length === 0) mains.push(join(ROOT, 'dist/cmd/main.js'));

function findHelm(): string | undefined {
  if (process.env.HELM_BINARY) return process.env.HELM_BINARY;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const d of dirs) {
    const p = join(d, 'helm');
    if (spawnSync(p, ['version', '--short'], { stdio: 'ignore' }).status === 0) return p;
  }
  return undefined;
}
const helm = findHelm();
/** No cluster for the scaffolder's discovery (it tries one for 3 s): a kubeconfig that does not exist. */
const env = { ...process.env, KUBECONFIG: join(tmpdir(), 'helm-operator-bench-no-kubeconfig'), HELM_BINARY: helm };

const TICK_MS = (() => {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10;
  }
})();
/** CPU of this process's waited-for children (user + system, ms), from /proc; NaN where there is no /proc. */
function childCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

interface Step {
  readonly args: readonly string[];
  readonly cwd?: string;
}
interface Case {
  readonly name: string;
  readonly needsHelm?: boolean;
  /** The steps of one run (in a fresh temporary directory when `fresh`), timed together. */
  readonly steps: (dir: string) => Step[];
  readonly fresh?: boolean;
}
const CASES: Case[] = [
  { name: 'version', steps: () => [{ args: ['version'] }] },
  { name: '--help', steps: () => [{ args: ['--help'] }] },
  { name: 'run --help', steps: () => [{ args: ['run', '--help'] }] },
  { name: 'init --help', steps: () => [{ args: ['init', '--help'] }] },
  { name: 'create api --help', steps: () => [{ args: ['create', 'api', '--help'] }] },
  { name: 'version --helm', needsHelm: true, steps: () => [{ args: ['version', '--helm'] }] },
  {
    name: 'init + create api (charts/nginx)',
    needsHelm: true,
    fresh: true,
    steps: (dir) => [
      { args: ['init', '--domain=example.com', '--project-name=bench'], cwd: dir },
      {
        args: [
          'create',
          'api',
          '--group=demo',
          '--version=v1alpha1',
          '--kind=Nginx',
          `--helm-chart=${ROOT}/charts/nginx`,
        ],
        cwd: dir,
      },
    ],
  },
];

function once(main: string, c: Case): { wall: number; cpu: number } {
  const dir = c.fresh ? mkdtempSync(join(tmpdir(), 'helm-operator-bench-cli-')) : ROOT;
  try {
    const cpu0 = childCpuMs();
    const t0 = performance.now();
    for (const s of c.steps(dir)) {
      const r = spawnSync(process.execPath, [main, ...s.args], { cwd: s.cwd ?? dir, env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`exit ${r.status}: ${(r.stderr || r.stdout).split('\n')[0]?.slice(0, 100)}`);
    }
    return { wall: performance.now() - t0, cpu: childCpuMs() - cpu0 };
  } finally {
    if (c.fresh) rmSync(dir, { recursive: true, force: true });
  }
}

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? Number.NaN;
};
const f0 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(0));

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadBefore = load();
const rows: string[] = [];
const skipped: string[] = [];
for (const c of CASES) {
  if (c.needsHelm && !helm) {
    skipped.push(c.name);
    continue;
  }
  for (const main of mains) {
    const build = mains.length > 1 ? ` | ${main.replace(/\/dist\/cmd\/main\.js$/, '')}` : '';
    try {
      once(main, c); // warm-up: the page cache and Node's compile cache
    } catch (err) {
      rows.push(`| ${c.name}${build} | 0 | ${(err as Error).message.replaceAll('|', '\\|')} | | |`);
      continue;
    }
    const runs = Array.from({ length: RUNS }, () => once(main, c));
    const wall = runs.map((r) => r.wall);
    rows.push(
      `| ${c.name}${build} | ${RUNS} | ${f0(quantile(wall, 0.5))} | ${f0(quantile(wall, 0.9))} | ${f0(
        quantile(
          runs.map((r) => r.cpu),
          0.5,
        ),
      )} |`,
    );
  }
}
const bare = Array.from({ length: RUNS }, () => timeNodeE0());
const [bareWall, bareCpu] = [bare.map((b) => b.wall), bare.map((b) => b.cpu)];
const buildCol = mains.length > 1 ? ' build |' : '';
process.stdout.write(
  `## helm-operator CLI start-up\n\n${cpus().length} cores, Node ${process.version}, load average ${loadBefore} before, ${load()} after; ` +
    `\`node -e 0\` (Node alone): ${f0(quantile(bareWall, 0.5))} ms wall, ${f0(quantile(bareCpu, 0.5))} ms CPU (medians)\n\n` +
    `| command |${buildCol} runs | median ms | p90 ms | CPU ms (median) |\n|---|${mains.length > 1 ? '---|' : ''}---|---|---|---|\n` +
    `${rows.join('\n')}\n` +
    (skipped.length > 0 ? `\nSkipped (no helm: set HELM_BINARY or put helm on PATH): ${skipped.join(', ')}\n` : ''),
);

function timeNodeE0(): { wall: number; cpu: number } {
  const cpu0 = childCpuMs();
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return { wall: performance.now() - t0, cpu: childCpuMs() - cpu0 };
}
