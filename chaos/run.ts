// `make chaos` (and its short version in `make test`): runs each chaos scenario on a fresh local control plane with
// the real operator and helm, then prints one table of figures and bars. Exits 1 when a bar is missed or a scenario
// fails. Usage: node chaos/run.ts [--short] [--only=kills,restarts,…] [--cases=…] (the node group's cases; it runs
// only when named: --only=node). Needs dist/ (npm run build) and the testenv
// binaries (TESTENV_BIN, else hack/testenv.sh build). Ctrl-C stops the operators and planes it started.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startPlane } from './kit/plane.ts';
import { formatTable, type Row, type Scenario } from './kit/scenario.ts';
import { badInput } from './scenarios/bad-input/index.ts';
import { kills } from './scenarios/kills/index.ts';
import { leader } from './scenarios/leader/index.ts';
import { network } from './scenarios/network/index.ts';
import { nodeGroup } from './scenarios/node/index.ts';
import { restarts } from './scenarios/restarts/index.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SCENARIOS: readonly Scenario[] = [kills, restarts, network, leader, badInput, nodeGroup];

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const short = args.includes('--short');
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const cases = args
    .find((a) => a.startsWith('--cases='))
    ?.slice('--cases='.length)
    .split(',');
  const unknown = only?.filter((n) => !SCENARIOS.some((s) => s.name === n)) ?? [];
  if (unknown.length > 0) {
    throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  if (!existsSync(join(ROOT, 'dist/cmd/main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const chosen = SCENARIOS.filter((s) => (only ? only.includes(s.name) : !s.onlyWhenNamed && (!short || s.inShort)));
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort(new Error('interrupted')));
  process.once('SIGTERM', () => abort.abort(new Error('terminated')));
  const work = mkdtempSync(join(tmpdir(), 'chaos-'));
  const t0 = performance.now();
  const log = (name: string) => (line: string) =>
    process.stderr.write(`chaos [${((performance.now() - t0) / 1000).toFixed(1)}s] ${name}: ${line}\n`);
  const results: { scenario: Scenario; rows: Row[]; error?: string; skipped?: string }[] = [];

  for (const scenario of chosen) {
    if (abort.signal.aborted) break;
    const say = log(scenario.name);
    const dir = join(work, scenario.name);
    mkdirSync(dir);
    const skipped = await scenario.skipReason?.(ROOT);
    if (skipped !== undefined) {
      say(`SKIPPED: ${skipped}`);
      results.push({ scenario, rows: [], skipped });
      continue;
    }
    say(`starting (${scenario.title}; plane with ${scenario.nodes ?? 0} nodes)`);
    const plane = await startPlane({ root: ROOT, nodes: scenario.nodes ?? 0 });
    const bin = plane.bin;
    try {
      const rows = await scenario.run({
        root: ROOT,
        plane,
        work: dir,
        short,
        cases,
        helm: join(bin, 'helm-v3'),
        log: say,
        signal: abort.signal,
      });
      results.push({ scenario, rows });
      say(`done: ${rows.filter((r) => !r.ok).length} of ${rows.length} bars missed`);
    } catch (err) {
      const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
      say(`FAILED: ${msg}`);
      writeFileSync(join(dir, 'error.txt'), `${describe(err)}\n`);
      results.push({ scenario, rows: [], error: describe(err) });
    } finally {
      await plane.stop();
    }
  }

  const table = formatTable(results);
  console.log(`\n### chaos${short ? ' (short)' : ''}: ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  console.log(table);
  const failed = results.filter((r) => r.error || r.rows.some((x) => !x.ok));
  if (failed.length > 0) {
    // Repeated last, so that the tail of a long CI log says what failed.
    for (const r of failed) {
      const missed = r.rows.filter((x) => !x.ok).map((x) => `${x.figure}: ${x.value} (bar ${x.bar})`);
      console.log(`\nchaos: ${r.scenario.name}: ${r.error ?? missed.join('; ')}`);
    }
    console.log(`\nchaos: ${failed.map((r) => r.scenario.name).join(', ')} missed a bar; logs are in ${work}`);
    return 1;
  }
  rmSync(work, { recursive: true, force: true });
  return 0;
}

/** An error with its chain of causes, each on its own line. */
function describe(err: unknown): string {
  const lines: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; depth++) {
    lines.push(e instanceof Error ? (depth === 0 ? (e.stack ?? e.message) : `caused by: ${e.message}`) : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return lines.join('\n');
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`chaos: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
