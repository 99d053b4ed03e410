// Cases 4 and 5 of the node group. 4: the leader pod evicted (the eviction API, as `kubectl drain` calls it): the
// other replica holds the Lease within the lease time, changes made during the handover are applied, and no helm
// install or upgrade the evicted leader was running is cut (`context canceled`: it lets them finish). 5: the
// leader's pod cut off from the API server by a DROP rule in its own network namespace for 30 s: it stops leading
// within the renew deadline (its log), the other takes over, and after the cut it is a follower again; no double
// write. Used by index.ts; removes the rule it adds in every case.

import { until } from '../../../test/support/until.ts';
import { sleep } from '../../kit/plane.ts';
import { row, seconds } from '../../kit/scenario.ts';
import { type CaseContext, churnAround, type NodeCase, tallyRows } from './case.ts';
import { leaderPod, OPERATOR_NS, operatorPods, operatorsReady, podLogs } from './deploy.ts';
import { decodeRelease, NS } from './fleet.ts';
import { containerCgroup, cutInNetns, netnsOf, operatorPid } from './pod-host.ts';

/** The scaffold's leader election (the operator's defaults: config/manager sets none). */
const LEASE_S = 15;
const RENEW_S = 10;
const RETRY_S = 2;
const CUT_MS = 30_000;
/** The API server as the pods reach it: the `kubernetes` Service's ClusterIP. */
const API_CLUSTER_IP = '10.0.0.1';

/** When the Lease is held by a pod other than `old` (ms after `t0`), polled every 100 ms. */
async function takeover(c: CaseContext, old: string, t0: number, timeoutMs: number) {
  return until(
    'another replica holding the Lease',
    async () => {
      const now = await leaderPod(c.k);
      return now !== '' && now !== old && { pod: now, ms: performance.now() - t0 };
    },
    { timeoutMs, everyMs: 100, signal: c.ctx.signal },
  ).catch(() => undefined);
}

/** Revisions (`name:version`) helm recorded as cut short: `failed` with a description saying `context canceled`. */
async function canceledRevisions(c: CaseContext): Promise<Set<string>> {
  const secrets = await c.k.core.listNamespacedSecret({ namespace: NS, labelSelector: 'owner=helm,status=failed' });
  const cut = new Set<string>();
  for (const s of secrets.items) {
    const r = s.data?.release ? decodeRelease(s.data.release) : undefined;
    if (r?.info?.description?.includes('context canceled')) cut.add(`${r.name}:${r.version}`);
  }
  return cut;
}

export const evictCase: NodeCase = {
  name: 'evict',
  title: '4 leader evicted',
  async run(c) {
    const old = await leaderPod(c.k);
    const cutBefore = await canceledRevisions(c);
    let took: { pod: string; ms: number } | undefined;
    const handover: string[] = [];
    const r = await churnAround(c, async () => {
      const t0 = performance.now();
      await c.k.core.createNamespacedPodEviction({
        name: old,
        namespace: OPERATOR_NS,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: old, namespace: OPERATOR_NS } },
      });
      // Changes made during the handover, before anyone holds the Lease again.
      for (const name of c.fleet.liveNames().slice(0, 5)) {
        await c.fleet.patch(name, { data: `handover-${name}` });
        handover.push(name);
      }
      took = await takeover(c, old, t0, 60_000);
      c.log(`evicted ${old}; ${took ? `${took.pod} leads after ${seconds(took.ms)}` : 'no takeover'}`);
    });
    const back = await operatorsReady(c.k, 2, c.ctx.signal, 120_000).then(
      () => 'yes',
      (err: unknown) => String(err).split('\n')[0] ?? '',
    );
    const cut = [...(await canceledRevisions(c))].filter((r) => !cutBefore.has(r));
    return [
      row(
        `${this.title}: the other replica holds the Lease (lease ${LEASE_S} s)`,
        took ? `${seconds(took.ms)} (${took.pod})` : 'never within 60 s',
        `≤ ${LEASE_S + RETRY_S} s`,
        took !== undefined && took.ms <= (LEASE_S + RETRY_S) * 1000,
      ),
      row(`${this.title}: changes made during the handover`, `${handover.length} CRs (checked below)`, '', true),
      row(
        `${this.title}: helm installs and upgrades cut by the eviction (\`failed\`, \`context canceled\`)`,
        cut.length === 0 ? '0' : `${cut.length}: ${cut.slice(0, 5).join(', ')}`,
        '0',
        cut.length === 0,
      ),
      row(`${this.title}: 2 operator pods Ready again, one of them leading`, back, 'yes', back === 'yes'),
      ...tallyRows(this.title, r),
    ];
  },
};

export const partitionCase: NodeCase = {
  name: 'partition',
  title: '5 leader cut off from the API server',
  async run(c) {
    const old = await leaderPod(c.k);
    const pod = (await operatorPods(c.k)).find((p) => p.name === old);
    const status = await c.k.core.readNamespacedPod({ name: old, namespace: OPERATOR_NS });
    const cid = status.status?.containerStatuses?.[0]?.containerID ?? '';
    const cg = pod ? containerCgroup(pod.uid, cid) : undefined;
    const pid = cg ? operatorPid(cg) : undefined;
    if (!pid) throw new Error(`no process found for the leader pod ${old} (${cid})`);
    const netns = netnsOf(pid);
    const hostNetns = netnsOf('self');
    let took: { pod: string; ms: number } | undefined;
    let lostMs: number | undefined;
    let cutAt = 0;
    const r = await churnAround(c, async () => {
      cutAt = Date.now();
      const t0 = performance.now();
      const lift = await cutInNetns(pid, API_CLUSTER_IP);
      c.log(`cut ${old} (pid ${pid}, ${netns}; host ${hostNetns}) off ${API_CLUSTER_IP}`);
      try {
        took = await takeover(c, old, t0, CUT_MS);
        await sleep(Math.max(0, CUT_MS - (performance.now() - t0)), c.ctx.signal);
      } finally {
        await lift();
      }
      c.log(`lifted the cut after ${seconds(performance.now() - t0)}`);
    });
    // The old leader's log: when it stopped leading (the container may have restarted since: read both).
    const logs = `${await podLogs(c.k, old, true)}\n${await podLogs(c.k, old)}`;
    const lostLine = logs
      .split('\n')
      .filter((l) => l.includes('Leader election lost'))
      .map((l) => JSON.parse(l) as { time?: number | string })
      .find((l) => Number(new Date(l.time ?? 0)) >= cutAt);
    if (lostLine) lostMs = Number(new Date(lostLine.time ?? 0)) - cutAt;
    await operatorsReady(c.k, 2, c.ctx.signal);
    const leaderNow = await leaderPod(c.k);
    const back = (await operatorPods(c.k)).find((p) => p.name === old);
    return [
      row(
        `${this.title}: the rule in the pod's network namespace, not the host's`,
        `${netns} vs host ${hostNetns}`,
        'different',
        netns !== '' && netns !== hostNetns,
      ),
      row(
        `${this.title}: the old leader stops leading (its log: Leader election lost)`,
        lostMs === undefined ? 'never' : seconds(lostMs),
        `≤ ${RENEW_S + RETRY_S} s (renew deadline ${RENEW_S} s)`,
        lostMs !== undefined && lostMs <= (RENEW_S + RETRY_S) * 1000,
      ),
      row(
        `${this.title}: the other replica holds the Lease`,
        took ? seconds(took.ms) : `never within ${CUT_MS / 1000} s`,
        `≤ ${LEASE_S + 2 * RETRY_S} s`,
        took !== undefined && took.ms <= (LEASE_S + 2 * RETRY_S) * 1000,
      ),
      row(
        `${this.title}: after the cut the old pod runs as a follower`,
        back ? `${back.ready ? 'Ready' : 'not Ready'}, ${back.restarts} restarts, leader ${leaderNow}` : 'gone',
        'Ready, not leading',
        back?.ready === true && leaderNow !== old,
      ),
      ...tallyRows(this.title, r),
    ];
  },
};
