// Post-renderer benchmark (not a test): the CPU one helm install pays for its ownership post-render step, with the
// bash script that hands its pipes to the operator (ownership/fifo-script.ts + fifo-server.ts), against a Node
// process per call (what the earlier Node post-renderer cost at the very least: it was a Node start-up that
// forwarded the manifest over a unix socket) and `cat` (the floor of any process). Run `npm run build` first, then
// `node bench/post-render-bench.ts`. Prints markdown tables to stdout: (1) the post-renderer child alone on
// charts/nginx's rendered manifest, run BENCH_RUNS times round-robin, each behind the same harness that gives it
// pipes as helm does (`bash -c 'cat | CHILD | cat'`; the `cat` row is the harness plus the floor): CPU of the
// children (waited-for children of this process, /proc/self/stat), CPU of the operator side (this process: server,
// render, spawn) and wall time; (2) with KUBECONFIG set (e.g. the
// folder `hack/testenv.sh up` prints), whole `helm install` runs of charts/nginx with each post-renderer and with
// none, for each helm in HELM_BINS (comma-separated `name=path`). Settings (env): BENCH_RUNS=200, BENCH_INSTALLS=15.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
// The built operator (dist/, from `npm run build`), typed by its sources: dist/ does not exist when `make test`
// type-checks a clean clone, so these are dynamic imports of computed paths.
const dist = (module: string) => join(ROOT, 'dist', module);
const { createHelmHomes, POST_RENDER_PLUGIN } = (await import(
  dist('helm/env.js')
)) as typeof import('../src/helm/env.js');
const { formatOwnershipArgs } = (await import(
  dist('ownership/context.js')
)) as typeof import('../src/ownership/context.js');
const { fifoPostRenderer, startFifoPostRenderServer } = (await import(
  dist('ownership/fifo-server.js')
)) as typeof import('../src/ownership/fifo-server.js');
const { ownershipRenderer } = (await import(
  dist('ownership/renderer.js')
)) as typeof import('../src/ownership/renderer.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const INSTALLS = Number(process.env.BENCH_INSTALLS ?? 15);
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const HELMS = (process.env.HELM_BINS ?? `helm=${process.env.HELM_BIN ?? 'helm'}`)
  .split(',')
  .map((s) => s.split('=') as [string, string]);
const say = (level: string) => (o: object, msg: string) =>
  process.stderr.write(`${level}: ${msg} ${JSON.stringify(o)}\n`);
/** The server's warnings and errors go to stderr (a failing call would otherwise only wait for its timeout). */
const silent = { debug() {}, info() {}, warn: say('warn'), error: say('error'), child: () => silent };

/** CPU seconds of the children this process has waited for (cutime + cstime). */
function childCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / CLK_TCK;
}
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

/** Pipes, not Node's socket pairs, as the child's stdin and stdout (as helm gives its post-renderer). */
const viaPipes = (cmd: string, args: readonly string[]) =>
  ['bash', ['-c', 'set -o pipefail; cat | "$@" | cat >/dev/null', 'pipes', cmd, ...args]] as const;

function run(cmd: string, args: readonly string[], o: { input?: string; env?: Record<string, string> } = {}) {
  return new Promise<void>((res, rej) => {
    const c = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'], ...(o.env ? { env: o.env } : {}) });
    let err = '';
    c.stderr.on('data', (d: Buffer) => {
      err += d;
    });
    c.on('error', rej);
    c.on('close', (code) => (code === 0 ? res() : rej(new Error(`${cmd} exited ${code}: ${err.slice(-500)}`))));
    c.stdin.end(o.input ?? '');
  });
}

interface Figures {
  child: number;
  own: number;
  walls: number[];
}

/**
 * Runs every variant `n` times, round-robin (one of each per round, so that the machine's load drifts over all of
 * them alike), after one untimed warm-up each.
 */
async function interleaved(n: number, variants: readonly ((i: number) => Promise<void>)[]) {
  for (const v of variants) await v(-1);
  const figs: Figures[] = variants.map(() => ({ child: 0, own: 0, walls: [] }));
  for (let i = 0; i < n; i++) {
    for (const [k, v] of variants.entries()) {
      const f = figs[k] as Figures;
      const t0 = { c: childCpu(), o: ownCpu(), w: performance.now() };
      await v(i);
      f.walls.push(performance.now() - t0.w);
      f.child += childCpu() - t0.c;
      f.own += ownCpu() - t0.o;
    }
  }
  return figs.map((f) => ({
    child: (f.child / n) * 1000,
    own: (f.own / n) * 1000,
    p50: pct(f.walls, 0.5),
    p95: pct(f.walls, 0.95),
  }));
}
type Measured = Awaited<ReturnType<typeof interleaved>>[number];

const row = (name: string, m: Measured, base?: number) =>
  `| ${name} | ${m.child.toFixed(1)} | ${m.own.toFixed(1)} | ${(m.child + m.own).toFixed(1)} | ${m.p50.toFixed(1)} | ${m.p95.toFixed(1)} |${base === undefined ? '' : ` ${((m.child + m.own) / base).toFixed(2)}× |`}`;

const work = mkdtempSync(join(tmpdir(), 'post-render-bench-'));
try {
  const [, helm0] = HELMS[0] ?? ['helm', 'helm'];
  const manifest = execFileSync(helm0, ['template', 'demo', join(ROOT, 'charts/nginx'), '-n', 'bench'], {
    encoding: 'utf8',
  });
  const owner = { apiVersion: 'demo.example.com/v1alpha1', kind: 'Nginx', namespace: 'bench', name: 'demo' };
  const args = formatOwnershipArgs({
    owner: { ...owner, uid: '0d7a4f0e-1111-2222-3333-444455556666' },
    chart: 'nginx',
    releaseNamespace: 'bench',
  });
  const render = ownershipRenderer({ discover: async () => ({ namespaced: true }) } as never);
  const dir = join(work, 'post-render');
  const kill = (pid: number, sig: NodeJS.Signals) => process.kill(pid, sig);
  const fifo = await startFifoPostRenderServer({
    dir,
    render,
    kill,
    logger: silent,
    signal: AbortSignal.timeout(10_000),
  });
  const node = {
    command: process.execPath,
    // A Node start-up that copies stdin to stdout, ignoring the per-call arguments.
    args: ['-e', 'process.stdin.pipe(process.stdout)', '--'],
  };
  const bash = fifoPostRenderer(dir);

  process.stderr.write(`post-render child alone, ${RUNS} runs each, manifest ${manifest.length} bytes\n`);
  const [before, after, floor] = (await interleaved(RUNS, [
    () => run(...viaPipes(node.command, [...node.args, ...args]), { input: manifest }),
    () => run(...viaPipes(bash.command, [...bash.args, ...args]), { input: manifest }),
    () => run(...viaPipes('/bin/cat', []), { input: manifest }),
  ])) as [Measured, Measured, Measured];
  const base = before.child + before.own;
  console.log(
    `\n### The post-render step alone (charts/nginx, ${manifest.length} bytes, ${RUNS} runs each), ms per call\n`,
  );
  console.log('| post-renderer | child CPU | operator CPU | total CPU | wall p50 | wall p95 | CPU vs before |');
  console.log('|---|---|---|---|---|---|---|');
  console.log(row('before: a Node process per call (copying stdin)', before, base));
  console.log(row('after: bash post-render.sh, its pipes read and written by the operator', after, base));
  console.log(row('floor: /bin/cat (a process that copies stdin)', floor, base));
  console.log('\n(each row includes the same harness, bash and two `cat`s, that gives the child pipes)');

  if (process.env.KUBECONFIG) {
    console.log(
      `\n### Whole \`helm install\` of charts/nginx (${INSTALLS} installs each, distinct releases, round-robin), ms per install\n`,
    );
    console.log(
      '| helm | post-renderer | child CPU (helm + post-renderer) | operator CPU | total CPU | wall p50 | wall p95 |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, bin] of HELMS) {
      const v4 = execFileSync(bin, ['version', '--template', '{{.Version}}'], { encoding: 'utf8' }).startsWith('v4');
      const ns = `prb-${Date.now().toString(36)}`;
      execFileSync('kubectl', ['create', 'namespace', ns], { stdio: 'ignore' });
      const variants = [
        ['none', undefined],
        ['a Node process', node],
        ['bash + operator', bash],
      ] as const;
      const installs = await Promise.all(
        variants.map(async ([label, pr]) => {
          const env = await createHelmHomes({
            workDir: join(work, 'helm'),
            base: { PATH: process.env.PATH, HOME: work },
            kubeconfig: process.env.KUBECONFIG,
            historyMax: 10,
            ...(pr ? { postRenderer: pr } : {}),
          });
          const prArgs = !pr
            ? []
            : [
                '--post-renderer',
                v4 ? POST_RENDER_PLUGIN : pr.command,
                ...(v4 ? args : [...pr.args, ...args]).flatMap((a) => ['--post-renderer-args', a]),
              ];
          const rel = (i: number) => `${label.replace(/[^a-z]+/g, '')}-${i + 1}`;
          return async (i: number) => {
            await run(bin, ['install', rel(i), join(ROOT, 'charts/nginx'), '-n', ns, ...prArgs], { env });
          };
        }),
      );
      const figs = await interleaved(INSTALLS, installs);
      figs.forEach((m, k) => {
        console.log(row(`${name} (${v4 ? 'v4' : 'v3'}) | ${variants[k]?.[0]}`, m));
      });
      execFileSync('kubectl', ['delete', 'namespace', ns, '--wait=false'], { stdio: 'ignore' });
    }
  }
  await fifo.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}
