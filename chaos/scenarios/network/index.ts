// Chaos scenario "network": the operator reaches the API server through fault proxies written here (a TCP proxy
// and a TLS-terminating HTTP one): dropped connections, 2 s latency, refused connects, 429s and 500s, a 30 s black
// hole and a leader cut off for longer than its Lease. Run by chaos/run.ts; every proxy and operator is stopped.
import { join } from 'node:path';
import { until } from '../../../test/support/until.ts';
import { createNamespace, installSampleCrd, type Kube, kubeFor } from '../../kit/kube.ts';
import { sleep } from '../../kit/plane.ts';
import { type Row, row, type Scenario, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { blackHolePart } from './hole.ts';
import { startHttpFaultProxy } from './http.ts';
import {
  appliedAt,
  type Change,
  Changes,
  exitState,
  isApplied,
  operatorFor,
  proxyKubeconfig,
  writeWatches,
} from './kit.ts';
import { leaderPart } from './leader.ts';
import { startFaultProxy } from './proxy.ts';

const NS = { faults: 'chaos-net', hole: 'chaos-hole', leader: 'chaos-lead' } as const;
const LATENCY_MS = 2_000;
const RECOVERY_BAR_MS = 30_000;

interface Fault {
  readonly name: string;
  readonly holdMs: number;
  /** The change made while it lasts: a new CR or a spec change. */
  readonly change: 'create' | 'patch';
  start(): void;
  stop(): Promise<void>;
}

type TcpProxy = Awaited<ReturnType<typeof startFaultProxy>>;
type HttpProxy = Awaited<ReturnType<typeof startHttpFaultProxy>>;

function faultsFor(short: boolean, tcp: TcpProxy, http: HttpProxy): Fault[] {
  const hold = short ? 6_000 : 10_000;
  let dropper: NodeJS.Timeout | undefined;
  return [
    {
      name: 'connections dropped every 2 s (mid-watch, mid-request)',
      holdMs: hold,
      change: 'create',
      start() {
        tcp.drop();
        dropper = setInterval(() => tcp.drop(), 2_000);
      },
      async stop() {
        clearInterval(dropper);
      },
    },
    {
      name: `${LATENCY_MS / 1000} s latency each way`,
      holdMs: hold,
      change: 'patch',
      start: () => tcp.latency(LATENCY_MS),
      stop: () => tcp.pass(),
    },
    {
      name: 'connections refused (and the open ones reset)',
      holdMs: hold,
      change: 'create',
      start: () => tcp.refuse(),
      stop: () => tcp.pass(),
    },
    {
      name: '429 Retry-After: 1 on every request (watches too)',
      holdMs: hold,
      change: 'patch',
      start: () => http.inject({ status: 429, every: 1, watches: true }),
      stop: async () => http.inject(undefined),
    },
    {
      name: '500 on every 3rd request (watches too)',
      holdMs: hold,
      change: 'create',
      start: () => http.inject({ status: 500, every: 3, watches: true }),
      stop: async () => http.inject(undefined),
    },
  ];
}

/** The faults one after the other, each with a change during it and one after it. */
async function faultsPart(ctx: ScenarioContext, k: Kube, changes: Changes, watches: string): Promise<Row[]> {
  const { signal, log } = ctx;
  const ns = NS.faults;
  const http = await startHttpFaultProxy(join(ctx.plane.dir, 'pki'), new URL(ctx.plane.server));
  const tcp = await startFaultProxy({ host: '127.0.0.1', port: http.port });
  const kubeconfig = proxyKubeconfig(ctx, tcp.port, 'kubeconfig-faults');
  const op = operatorFor(ctx, { name: 'operator-faults', kubeconfig, watches, namespace: ns });
  const rows: Row[] = [];
  try {
    const initial = ctx.short ? 2 : 3;
    const t0 = performance.now();
    const first: Change[] = [];
    for (let i = 1; i <= initial; i++) first.push(await changes.create(ns, `net-${i}`));
    const ready = await Promise.all(first.map((c) => appliedAt(k, c, 180_000, signal)));
    if (ready.some((x) => x === undefined)) throw new Error('the first CRs were never Deployed through the proxies');
    rows.push(row(`${initial} CRs Deployed through the proxies`, seconds(performance.now() - t0), '', true));

    let created = initial;
    let patched = 0;
    const nextPatch = () => `net-${(patched++ % initial) + 1}`;
    for (const f of faultsFor(ctx.short, tcp, http)) {
      log(`fault: ${f.name} for ${f.holdMs / 1000} s`);
      f.start();
      let during: Change;
      try {
        during =
          f.change === 'create' ? await changes.create(ns, `net-${++created}`) : await changes.patch(ns, nextPatch());
        await sleep(f.holdMs, signal); // the deliberate fault duration
      } finally {
        await f.stop();
      }
      const end = performance.now();
      const doneAt = await appliedAt(k, during, 150_000, signal);
      const recovery = doneAt === undefined ? undefined : Math.max(0, doneAt - end);
      rows.push(
        row(
          `${f.name}: the ${f.change === 'create' ? 'new CR' : 'spec change'} made during it applied, after it ended`,
          recovery === undefined
            ? 'not within 150 s'
            : `${seconds(recovery)}${doneAt !== undefined && doneAt <= end ? ' (during it)' : ''}`,
          `≤ ${RECOVERY_BAR_MS / 1000} s`,
          recovery !== undefined && recovery <= RECOVERY_BAR_MS,
        ),
      );
      const after = await changes.patch(ns, nextPatch());
      const afterAt = await appliedAt(k, after, 90_000, signal);
      const seen = afterAt === undefined ? undefined : afterAt - after.at;
      rows.push(
        row(
          `${f.name}: a spec change made after it applied (no stuck watch)`,
          seen === undefined ? 'not within 90 s' : seconds(seen),
          `≤ ${RECOVERY_BAR_MS / 1000} s`,
          seen !== undefined && seen <= RECOVERY_BAR_MS,
        ),
      );
    }
    const c = http.counts();
    const s = tcp.stats();
    log(
      `proxies: ${c.forwarded} requests forwarded, ${c[429]}×429, ${c[500]}×500; ${s.accepted} connections, ${s.dropped} dropped`,
    );
    rows.push(row('injected answers: 429 / 500', `${c[429]} / ${c[500]}`, '> 0 each', c[429] > 0 && c[500] > 0));
    rows.push(row('connections dropped or reset by the proxy', s.dropped, '> 0', s.dropped > 0));
    const errors = ['Watch error', 'Dependent watch error', 'Reconciler error'].map((m) => op.logged(m).length);
    rows.push(
      row('operator log during the faults: watch / dependent watch / reconciler errors', errors.join(' / '), '', true),
    );
    const state = await exitState(op);
    rows.push(row('the operator keeps running through the faults', state, 'running', state === 'running'));
    return rows;
  } finally {
    await op.stop(60_000).catch(() => op.killGroup());
    await tcp.close();
    await http.close();
  }
}

/** Every CR's latest change applied (no reconcile lost), waiting a little for the last ones. */
async function noneLost(ctx: ScenarioContext, k: Kube, changes: Changes): Promise<Row> {
  const all = [...changes.latest.values()];
  let ok = 0;
  await until(
    'every change applied',
    async () => {
      ok = 0;
      for (const c of all) if (await isApplied(k, c).catch(() => false)) ok++;
      return ok === all.length;
    },
    { timeoutMs: 30_000, everyMs: 1_000, signal: ctx.signal },
  ).catch(() => undefined);
  return row(
    'no reconcile lost: CRs at their latest change at the end',
    `${ok} of ${all.length}`,
    String(all.length),
    ok === all.length,
  );
}

export const network: Scenario = {
  name: 'network',
  title: 'A bad network',
  inShort: true,
  async run(parent) {
    // One part failing stops the others (they may be waiting out a watchdog).
    const inner = new AbortController();
    const ctx: ScenarioContext = { ...parent, signal: AbortSignal.any([parent.signal, inner.signal]) };
    const k = kubeFor(ctx.plane.kubeconfig, join(ctx.plane.bin, 'kubectl'));
    await installSampleCrd(k, ctx.root);
    for (const ns of ctx.short ? [NS.faults] : Object.values(NS)) await createNamespace(k, ns);
    const watches = writeWatches(ctx);
    const changes = new Changes(k);
    const part = async (f: () => Promise<Row[]>) => {
      try {
        return await f();
      } catch (err) {
        inner.abort(err);
        throw err;
      }
    };
    const parts = ctx.short
      ? [part(() => faultsPart(ctx, k, changes, watches))]
      : [
          part(async () => [
            ...(await faultsPart(ctx, k, changes, watches)),
            ...(await leaderPart(ctx, k, changes, { namespace: NS.leader, watches })),
          ]),
          part(() => blackHolePart(ctx, k, changes, { namespace: NS.hole, watches })),
        ];
    const settled = await Promise.allSettled(parts);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const rows = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
    return [...rows, await noneLost(ctx, k, changes)];
  },
};
