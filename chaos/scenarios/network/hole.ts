// The black-hole part of the network chaos scenario: one operator through a fault proxy whose path goes silent for
// 30 s, leaving every connection open during it dead for good; only the informers' watchdog and the client timeouts
// can bring the operator back. Called by index.ts; stops its operator and proxy in every case.
import type { Kube } from '../../kit/kube.ts';
import { sleep } from '../../kit/plane.ts';
import { type Row, row, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { appliedAt, type Changes, exitState, operatorFor, proxyKubeconfig } from './kit.ts';
import { startFaultProxy } from './proxy.ts';

const HOLE_MS = 30_000;
/** The informers' inactivity watchdog (src/cache/informer.ts, inactivityTimeoutMs default; no flag changes it). */
const WATCHDOG_MS = 150_000;
/** Reopening the watch, the reconcile and helm after the watchdog fired. */
const SLACK_MS = 45_000;

export async function blackHolePart(
  ctx: ScenarioContext,
  k: Kube,
  changes: Changes,
  o: { readonly namespace: string; readonly watches: string },
): Promise<Row[]> {
  const { signal, log, plane } = ctx;
  const { namespace } = o;
  const api = new URL(plane.server);
  const proxy = await startFaultProxy({ host: api.hostname, port: Number(api.port) });
  const kubeconfig = proxyKubeconfig(ctx, proxy.port, 'kubeconfig-hole');
  const op = operatorFor(ctx, { name: 'operator-hole', kubeconfig, watches: o.watches, namespace });
  try {
    const first = [await changes.create(namespace, 'hole-1'), await changes.create(namespace, 'hole-2')];
    for (const c of first) {
      if ((await appliedAt(k, c, 180_000, signal)) === undefined) throw new Error(`${c.name} was never Deployed`);
    }
    log(`black hole: ${HOLE_MS / 1000} s from now; the watchdog decides (${WATCHDOG_MS / 1000} s of silence)`);
    const t0 = performance.now();
    proxy.blackhole();
    const during = [await changes.patch(namespace, 'hole-1'), await changes.create(namespace, 'hole-3')];
    await sleep(HOLE_MS, signal); // the deliberate fault duration
    await proxy.pass();
    const end = performance.now();
    const after = await changes.patch(namespace, 'hole-2');
    const deadline = t0 + WATCHDOG_MS + SLACK_MS + 60_000; // past the bar, so that a miss still gets a figure
    const wait = (c: typeof after) => appliedAt(k, c, Math.max(0, deadline - performance.now()), signal);
    const [d1, d2, a1] = await Promise.all([...during.map(wait), wait(after)]);
    log(
      `black hole: ${proxy.stats().dead} connections silenced; applied at ${[d1, d2, a1].map((x) => (x === undefined ? '-' : seconds(x - t0)))}`,
    );

    const barMs = WATCHDOG_MS + SLACK_MS;
    const bar = `≤ ${barMs / 1000} s after it began (${WATCHDOG_MS / 1000} s watchdog + ${SLACK_MS / 1000} s)`;
    const rows: Row[] = [];
    const duringAt = d1 === undefined || d2 === undefined ? undefined : Math.max(d1, d2);
    rows.push(
      row(
        `black hole ${HOLE_MS / 1000} s: changes made during it (a spec change, a new CR) applied`,
        duringAt === undefined
          ? 'not applied'
          : `${seconds(duringAt - t0)} after it began (${seconds(Math.max(0, duringAt - end))} after it ended)`,
        bar,
        duringAt !== undefined && duringAt - t0 <= barMs,
      ),
    );
    rows.push(
      row(
        'black hole: a change made after it applied (no stuck watch)',
        a1 === undefined ? 'not applied' : `${seconds(a1 - t0)} after it began`,
        bar,
        a1 !== undefined && a1 - t0 <= barMs,
      ),
    );
    rows.push(row('black hole: connections it left dead for good', proxy.stats().dead, '', true));
    const state = await exitState(op);
    rows.push(row('black hole: the operator keeps running', state, 'running', state === 'running'));
    return rows;
  } finally {
    await op.stop(60_000).catch(() => op.killGroup());
    await proxy.close();
  }
}
