// Chaos scenario "leader": two operator replicas with --leader-elect; the leader's process group is SIGKILLed while
// its helm upgrade waits on a hook (test/fixtures/charts/slow-hook), and the standby must take the Lease once it
// expires, recover the pending release and converge the CR (1 round short, 3 full, a fresh standby each time).
// Called by chaos/run.ts; signals only the groups it started, and stops every replica before it returns.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupMembers } from '../../../test/support/operator-process.ts';
import { until } from '../../../test/support/until.ts';
import {
  createNamespace,
  crs,
  deployedAtGeneration,
  installSampleCrd,
  KIND,
  kubeFor,
  latestReleases,
  pendingRecords,
  releaseRecords,
} from '../../kit/kube.ts';
import { type OperatorHandle, startOperator } from '../../kit/operator.ts';
import { type Row, row, type Scenario, type ScenarioContext, seconds } from '../../kit/scenario.ts';
import { brief, planeHelmProcesses } from '../kills/checks.ts';
import { hookCompleter, leaseHolder } from './hooks.ts';

const NS = 'chaos-leader';
const LEASE = 'chaos-leader';
const CR = 'slow';
const LEASE_S = 6;
const RETRY_S = 1;
/** The takeover bar: the lease duration plus four retry periods (the last renew and the standby's tries). */
const TAKEOVER_BAR_MS = (LEASE_S + 4 * RETRY_S) * 1000;
/** Not before the lease expired: its last renew was about one retry period (plus a slow request) before the kill. */
const TAKEOVER_MIN_MS = (LEASE_S - 2 * RETRY_S) * 1000;
const CONVERGE_BAR_MS = 60_000;
const maxOf = (xs: readonly (number | undefined)[]) => Math.max(...xs.map((x) => x ?? Number.POSITIVE_INFINITY));
const list = (xs: readonly (number | undefined)[]) =>
  xs.map((x) => (x === undefined ? 'never' : seconds(x))).join(', ');
const isHelm = (m: { comm: string }) => m.comm.startsWith('helm');

export const leader: Scenario = {
  name: 'leader',
  title: 'A leader killed mid-helm',
  inShort: true,
  run: runLeader,
};

async function runLeader(ctx: ScenarioContext): Promise<Row[]> {
  const { signal } = ctx;
  const poll = (timeoutMs: number, everyMs = 200) => ({ timeoutMs, everyMs, signal });
  const k = kubeFor(ctx.plane.kubeconfig, join(ctx.plane.bin, 'kubectl'));
  await installSampleCrd(k, ctx.root);
  await createNamespace(k, NS);
  const watchesFile = join(ctx.work, 'watches.yaml');
  const chart = join(ctx.root, 'test/fixtures/charts/slow-hook');
  writeFileSync(
    watchesFile,
    `- group: ${KIND.group}\n  version: ${KIND.version}\n  kind: ${KIND.kind}\n  chart: ${chart}\n`,
  );
  const started: OperatorHandle[] = [];
  const start = (label: string) => {
    const op = startOperator({
      root: ctx.root,
      kubeconfig: ctx.plane.kubeconfig,
      watchesFile,
      helm: ctx.helm,
      env: { WATCH_NAMESPACE: NS },
      logFile: join(ctx.work, `operator-${label}.log`),
      args: [
        '--leader-elect',
        `--leader-election-id=${LEASE}`,
        `--leader-election-namespace=${NS}`,
        `--leader-elect-lease-duration=${LEASE_S}s`,
        '--leader-elect-renew-deadline=4s',
        `--leader-elect-retry-period=${RETRY_S}s`,
      ],
    });
    started.push(op);
    return op;
  };
  const identity = (op: OperatorHandle) => op.logged('Attempting to acquire leader lease')[0]?.identity as string;
  const cr = crs(k, NS);
  const latestPending = async () =>
    pendingRecords(await releaseRecords(k, NS)).pending.some((r) => r.startsWith(`${CR}:`));

  /** One round: an upgrade that waits on its hook, the leader's group SIGKILLed mid-helm, the standby taking over. */
  const round = async (lead: OperatorHandle, standby: OperatorHandle, data: string) => {
    await cr.patchSpec(CR, { hook: true, data });
    let standbyHelm = 0;
    await until(
      'helm upgrading (pending-upgrade) in the leader',
      async () => {
        if (groupMembers(standby.pid).some(isHelm)) standbyHelm++;
        return (await latestPending()) && groupMembers(lead.pid).some(isHelm);
      },
      poll(90_000),
    );
    const helmAtKill = groupMembers(lead.pid).filter(isHelm).length;
    const killedAt = performance.now();
    await lead.killGroup();
    ctx.log(`killed the leader ${lead.pid} with ${helmAtKill} helm; upgrading to ${data}`);
    const completer = hookCompleter(ctx.plane.kubeconfig, NS);
    try {
      const since = async (ok: boolean) => ok && performance.now() - killedAt;
      const takeoverMs = await until(
        'the standby holding the Lease',
        async () => since((await leaseHolder(k, NS, LEASE)) === identity(standby)),
        poll(60_000, 100),
      ).catch((err: unknown) => void ctx.log(String(err)));
      const convergeMs = await until(
        'the CR converged after the takeover',
        async () => {
          const now = await cr.get(CR);
          const latest = latestReleases(await releaseRecords(k, NS)).get(CR);
          const cm = await k.core.readNamespacedConfigMap({ name: `${CR}-data`, namespace: NS });
          return since(deployed(now) && latest?.status === 'deployed' && cm.data?.data === data);
        },
        poll(CONVERGE_BAR_MS + 30_000, 250),
      ).catch((err: unknown) => void ctx.log(String(err)));
      const recovered = standby.logged('Recovered stuck release').length > 0;
      ctx.log(`takeover ${list([takeoverMs ?? undefined])}, converged ${list([convergeMs ?? undefined])}`);
      return {
        helmAtKill,
        standbyHelm,
        takeoverMs: takeoverMs ?? undefined,
        convergeMs: convergeMs ?? undefined,
        recovered,
      };
    } finally {
      // Stopped before the next round, so that its upgrade waits on its hook again.
      await completer.stop();
    }
  };

  try {
    let [a, b] = [start('a'), start('b')];
    await until('both replicas campaigning', async () => identity(a) && identity(b), poll(60_000));
    const holder = await until('a leader', () => leaseHolder(k, NS, LEASE), poll(60_000));
    if (holder !== identity(a) && holder !== identity(b)) throw new Error(`the Lease is held by ${holder}`);
    if (holder !== identity(a)) [a, b] = [b, a];
    ctx.log(`leader ${identity(a)} (pid ${a.pid}); standby ${identity(b)} (pid ${b.pid})`);

    // Installed without the hook; each upgrade turns the pre-upgrade hook on, whose Job never completes by itself.
    await cr.create(CR, { hook: false, data: 'v1' });
    await until('the CR Deployed without the hook', async () => deployed(await cr.get(CR)), poll(90_000));
    const rounds = ctx.short ? 1 : 3;
    const results = [];
    for (let i = 0; i < rounds; i++) {
      results.push(await round(a, b, `v${i + 2}`));
      // The standby now leads; a fresh replica becomes the next standby.
      [a, b] = [b, start(`r${i}`)];
      await until('the fresh standby campaigning', async () => identity(b), poll(60_000));
    }
    const records = await releaseRecords(k, NS);
    const { pending, stalePending } = pendingRecords(records);
    const leftover = planeHelmProcesses(ctx.helm, ctx.plane.kubeconfig).filter((h) => h.pgid !== a.pid);
    ctx.log(`release records: ${records.sort().join(', ')}`);
    const takeovers = results.map((r) => r.takeoverMs);
    const converges = results.map((r) => r.convergeMs);
    const midHelm = results.filter((r) => r.helmAtKill > 0).length;
    const recovered = results.filter((r) => r.recovered).length;
    const standbyHelm = results.reduce((n, r) => n + r.standbyHelm, 0);
    return [
      row(
        'leaders SIGKILLed while their helm upgrade ran',
        `${midHelm} of ${rounds}`,
        String(rounds),
        midHelm === rounds,
      ),
      row('polls that saw helm in a standby before its takeover', standbyHelm, '0', standbyHelm === 0),
      row(
        'leader-kill takeover time (Lease held by the standby)',
        list(takeovers),
        `${seconds(TAKEOVER_MIN_MS)} – ${seconds(TAKEOVER_BAR_MS)} (lease ${LEASE_S} s, retry ${RETRY_S} s)`,
        maxOf(takeovers) <= TAKEOVER_BAR_MS && Math.min(...takeovers.map((t) => t ?? 0)) >= TAKEOVER_MIN_MS,
      ),
      row(
        'pending release recovered by the new leader',
        `${recovered} of ${rounds}`,
        String(rounds),
        recovered === rounds,
      ),
      row(
        'convergence after the leader-kill (Deployed at its generation, spec applied)',
        list(converges),
        `≤ ${seconds(CONVERGE_BAR_MS)}`,
        maxOf(converges) <= CONVERGE_BAR_MS,
      ),
      row('pending releases (latest revision pending-*)', brief(pending), '0', pending.length === 0),
      row('older revisions left pending-* by helm rollbacks', brief(stalePending), '', true),
      row('leftover helm processes (of the killed leaders)', leftover.length, '0', leftover.length === 0),
    ];
  } finally {
    await Promise.all(
      started.map((op) => op.stop().catch((err: unknown) => ctx.log(`stopping ${op.pid}: ${String(err)}`))),
    );
  }
}

const deployed = (cr: Parameters<typeof deployedAtGeneration>[0] | undefined) =>
  cr !== undefined && deployedAtGeneration(cr);
