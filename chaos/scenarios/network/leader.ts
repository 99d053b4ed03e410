// The leader part of the network chaos scenario: two replicas with --leader-elect and short Lease timings, the
// leader through a fault proxy, the standby direct; the leader's proxy is black-holed for longer than the lease.
// Called by index.ts; stops both replicas and its proxy in every case.

import { until } from '../../../test/support/until.ts';
import type { Kube } from '../../kit/kube.ts';
import type { OperatorHandle } from '../../kit/operator.ts';
import { sleep } from '../../kit/plane.ts';
import { type Row, row, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { appliedAt, type Changes, exitState, operatorFor, proxyKubeconfig } from './kit.ts';
import { startFaultProxy } from './proxy.ts';

const LEASE_S = 6;
const RENEW_S = 4;
const RETRY_S = 1;
const LEASE_ID = 'chaos-network';
/** How long the leader's proxy stays black: well past the lease. */
const HOLE_MS = 20_000;

/** Resolves with `value` after `ms` without holding the process open. */
const later = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(r, ms, value).unref());

const holder = async (k: Kube, namespace: string) =>
  (await k.coordination.readNamespacedLease({ name: LEASE_ID, namespace })).spec?.holderIdentity ?? '';

/** When `op` first logged `msg` (polled), or undefined when it did not within `timeoutMs`. */
async function loggedAt(op: OperatorHandle, msg: string, timeoutMs: number, signal: AbortSignal) {
  return until(msg, async () => op.logged(msg).length > 0 && performance.now(), {
    timeoutMs,
    everyMs: 50,
    signal,
  }).catch(() => undefined);
}

export async function leaderPart(
  ctx: ScenarioContext,
  k: Kube,
  changes: Changes,
  o: { readonly namespace: string; readonly watches: string },
): Promise<Row[]> {
  const { signal, log, plane } = ctx;
  const { namespace } = o;
  const api = new URL(plane.server);
  const proxy = await startFaultProxy({ host: api.hostname, port: Number(api.port) });
  const args = [
    '--leader-elect',
    `--leader-election-id=${LEASE_ID}`,
    `--leader-election-namespace=${namespace}`,
    `--leader-elect-lease-duration=${LEASE_S}s`,
    `--leader-elect-renew-deadline=${RENEW_S}s`,
    `--leader-elect-retry-period=${RETRY_S}s`,
  ];
  const ops: OperatorHandle[] = [];
  const rows: Row[] = [];
  try {
    const kubeconfig = proxyKubeconfig(ctx, proxy.port, 'kubeconfig-leader');
    const leader = operatorFor(ctx, { name: 'leader-a', kubeconfig, watches: o.watches, namespace, args });
    ops.push(leader);
    const first = await until('the first replica to take the Lease', () => holder(k, namespace), {
      timeoutMs: 60_000,
      signal,
    });
    const c1 = await changes.create(namespace, 'lead-1');
    if ((await appliedAt(k, c1, 120_000, signal)) === undefined) throw new Error('the leader never applied lead-1');
    const standby = operatorFor(ctx, {
      name: 'leader-b',
      kubeconfig: plane.kubeconfig,
      watches: o.watches,
      namespace,
      args,
    });
    ops.push(standby);
    await until(
      'the standby to see the leader',
      async () => standby.logged('Another instance holds the leader lease').length > 0,
      {
        timeoutMs: 60_000,
        signal,
      },
    );
    log(`leader part: ${first} leads through the proxy; black-holing it for ${HOLE_MS / 1000} s`);

    const t0 = performance.now();
    proxy.blackhole();
    const lostAt = loggedAt(leader, 'Leader election lost', 60_000, signal);
    const takenAt = until(
      'the standby to take the Lease',
      async () => {
        const h = await holder(k, namespace);
        return h !== '' && h !== first && performance.now();
      },
      { timeoutMs: 60_000, everyMs: 100, signal },
    ).catch(() => undefined);
    const taken = await takenAt;
    const after = taken === undefined ? undefined : await changes.patch(namespace, 'lead-1');
    const created = taken === undefined ? undefined : await changes.create(namespace, 'lead-2');
    const lost = await lostAt;
    const waitLeft = Math.max(0, t0 + HOLE_MS - performance.now());
    await sleep(waitLeft, signal); // the deliberate fault duration
    await proxy.pass();
    const code = await Promise.race([leader.exited, later(90_000, 'still running')]);

    const bar = LEASE_S + 4 * RETRY_S;
    const takeover = taken === undefined ? undefined : taken - t0;
    rows.push(
      row(
        `leader: the standby takes the Lease after the leader loses the API server (lease ${LEASE_S} s, retry ${RETRY_S} s)`,
        takeover === undefined ? 'never (within 60 s)' : seconds(takeover),
        `≤ ${bar} s`,
        takeover !== undefined && takeover <= bar * 1000,
      ),
    );
    const lostMs = lost === undefined ? undefined : lost - t0;
    rows.push(
      row(
        'leader: the old leader stops leading (Leader election lost) before the Lease could expire, and exits 1',
        `${lostMs === undefined ? 'never' : seconds(lostMs)}, exit ${code}`,
        `≤ ${LEASE_S} s, exit 1`,
        lostMs !== undefined && lostMs <= LEASE_S * 1000 && code === 1,
      ),
    );
    let appliedMs: number | undefined;
    if (after && created && taken !== undefined) {
      const done = await Promise.all([appliedAt(k, after, 60_000, signal), appliedAt(k, created, 60_000, signal)]);
      if (done.every((d) => d !== undefined)) appliedMs = Math.max(...(done as number[])) - after.at;
    }
    rows.push(
      row(
        'leader: changes made after the takeover (a spec change, a new CR) applied by the new leader',
        appliedMs === undefined ? 'not within 60 s' : seconds(appliedMs),
        '≤ 30 s',
        appliedMs !== undefined && appliedMs <= 30_000,
      ),
    );
    const standbyState = await exitState(standby);
    rows.push(row('leader: the new leader keeps running', standbyState, 'running', standbyState === 'running'));
    return rows;
  } finally {
    await Promise.all(ops.map((op) => op.stop(60_000).catch(() => op.killGroup())));
    await proxy.close();
  }
}
