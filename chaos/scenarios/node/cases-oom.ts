// Case 3 of the node group: the operator's memory. First, with the scaffold's limits, the highest memory over the
// churn (the container's cgroup peak and the operator process' peak RSS) and the margin to the limit. Then an overlay
// sets the limit low on purpose (below the operator's measured peak): the kernel OOM-kills it, which shows in the pod
// status (OOMKilled) and `kubectl get pods`. One kill is made to land while helm runs in the container (below), so
// that a release is left pending-*; restoring the scaffold's limit converges everything, nothing left pending.
// Used by index.ts; leaves the scaffold's deployment in place when it returns.
import { existsSync } from 'node:fs';
import { until } from '../../../test/support/until.ts';
import { pendingRecords, releaseRecords } from '../../kit/kube.ts';
import { row, seconds } from '../../kit/scenario.ts';
import { type CaseContext, churnAround, type NodeCase, tallyRows } from './case.ts';
import { deploy, OPERATOR_NS, type OperatorPod, operatorPods, operatorsReady, podLogs } from './deploy.ts';
import { NS } from './fleet.ts';
import {
  cgroupLimitBytes,
  cgroupPeakBytes,
  containerCgroup,
  helmWrites,
  oomKillNow,
  operatorPid,
  peakRss,
  podContainerDirs,
} from './pod-host.ts';

const MiB = 1024 * 1024;
const SCAFFOLD_LIMIT = 512 * MiB;
/** The STATUS and RESTARTS columns of `pod`'s line in `kubectl get pods`. */
const statusOf = (table: string, pod: string) =>
  (table.split('\n').find((l) => l.startsWith(pod)) ?? '').split(/\s+/).slice(2, 4).join(' ');
const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`;

/** Each operator container's cgroup peak and its node process' peak RSS, in bytes. */
async function peaks(c: CaseContext): Promise<{ cgroup: number; rss: number }> {
  let cgroup = 0;
  let rss = 0;
  for (const p of await operatorPods(c.k)) {
    const pod = await c.k.core.readNamespacedPod({ name: p.name, namespace: OPERATOR_NS });
    const dir = containerCgroup(p.uid, pod.status?.containerStatuses?.[0]?.containerID ?? '');
    if (!dir) continue;
    cgroup = Math.max(cgroup, cgroupPeakBytes(dir));
    const pid = operatorPid(dir);
    if (pid) rss = Math.max(rss, peakRss(pid));
  }
  return { cgroup, rss };
}

/** The OOM kill made to land mid-helm: the pod, when (ms after the low limit's apply), the releases left pending. */
interface Strike {
  readonly pod: string;
  /** Its container id (the cgroup folder's name). */
  readonly container: string;
  readonly ms: number;
  readonly helm: number;
  /** The releases helm was installing or upgrading when it was killed, still pending-* right after. */
  readonly pending: string[];
  /** The pod status' lastState.terminated of that container (reason, exit code, id). */
  readonly lastState?: string;
}

/**
 * Waits until an operator container under the low limit (`lowBytes`) runs a helm install or upgrade whose release is
 * recorded pending-*, then has the kernel OOM-kill its operator process at that moment (pod-host.ts oomKillNow), and
 * reads the releases left pending-* once it is gone: helm died with it (the container's PID namespace ends with its
 * PID 1) in the middle of the install or upgrade. Then waits for the pod's status to record that container's end.
 */
async function oomKillMidHelm(c: CaseContext, lowBytes: number, t0: number): Promise<Strike | undefined> {
  let pods: OperatorPod[] = [];
  let listed = 0;
  const strike = await until(
    'a helm install or upgrade, its release pending-*, in an operator container under the low limit',
    async () => {
      if (performance.now() - listed > 1_000) {
        pods = (await operatorPods(c.k)).filter((p) => !p.deleting);
        listed = performance.now();
      }
      for (const p of pods) {
        for (const dir of podContainerDirs(p.uid)) {
          if (!existsSync(dir) || cgroupLimitBytes(dir) > lowBytes) continue;
          const writes = helmWrites(dir);
          const pid = writes.length > 0 ? operatorPid(dir) : undefined;
          if (pid === undefined) continue;
          // Its release recorded pending-*: helm is past its start, in the middle of the install or upgrade.
          const before = pendingRecords(await releaseRecords(c.k, NS)).pending;
          const cut = writes.map((w) => w.release).filter((r) => before.some((p) => p.startsWith(`${r}:`)));
          if (cut.length === 0) continue;
          oomKillNow(dir, pid);
          await until('the OOM-killed operator process gone', () => !existsSync(`/proc/${pid}`), {
            timeoutMs: 30_000,
            everyMs: 20,
            signal: c.ctx.signal,
          });
          const after = pendingRecords(await releaseRecords(c.k, NS)).pending;
          const pending = after.filter((a) => cut.some((r) => a.startsWith(`${r}:`)));
          const container = dir.split('/').at(-1) ?? '';
          return { pod: p.name, container, ms: performance.now() - t0, helm: writes.length, pending };
        }
      }
      return false;
    },
    { timeoutMs: 180_000, everyMs: 50, signal: c.ctx.signal },
  ).catch((err: unknown) => {
    c.log(`no OOM kill mid-helm: ${String(err).split('\n')[0]}`);
    return undefined;
  });
  if (!strike) return undefined;
  // The kubelet records that very container's end (it restarts it at once, and the next may end too).
  const lastState = await until(
    'the struck container recorded as terminated',
    async () => {
      const pod = await c.k.core.readNamespacedPod({ name: strike.pod, namespace: OPERATOR_NS });
      const t = pod.status?.containerStatuses?.[0]?.lastState?.terminated;
      const ended = t?.containerID?.endsWith(strike.container) ? t : undefined;
      return ended && JSON.stringify({ reason: t?.reason, exitCode: t?.exitCode, containerID: t?.containerID });
    },
    { timeoutMs: 60_000, everyMs: 100, signal: c.ctx.signal },
  ).catch(() => 'not recorded');
  return { ...strike, lastState };
}

export const oomCase: NodeCase = {
  name: 'oom',
  title: '3 operator OOM-killed',
  async run(c) {
    const r1 = await churnAround(c, async () => {}, { beforeMs: 15_000, afterMs: 15_000 });
    const peak = await peaks(c);
    // 90 % of the container's measured peak: below what install and churn need, yet above what the operator needs
    // to start (about 55 MiB), so that it gets to run helm and is killed at work, not only at start-up.
    const low = Math.max(48, Math.floor((peak.cgroup * 0.9) / MiB));
    c.log(
      `peaks with the scaffold's limits: cgroup ${mib(peak.cgroup)}, operator RSS ${mib(peak.rss)}; low limit ${low}Mi`,
    );

    let oom: { pod: string; ms: number } | undefined;
    let strike: Strike | undefined;
    let getPods = '';
    let described = '';
    let previousLog = '';
    const t0 = performance.now();
    const churn = c.fleet.churn(c.ctx.signal);
    try {
      await deploy(c.ctx, c.k, { replicas: 2, memoryLimit: `${low}Mi` });
      strike = await oomKillMidHelm(c, low * MiB, t0);
      c.log(strike ? `OOM kill mid-helm: ${JSON.stringify(strike)}` : 'no OOM kill mid-helm');
      oom = await until(
        'an operator container OOMKilled',
        async () => {
          const hit = (await operatorPods(c.k)).find(
            (p) => p.lastTerminated === 'OOMKilled' && (!strike || p.name === strike.pod),
          );
          return hit && { pod: hit.name, ms: performance.now() - t0 };
        },
        { timeoutMs: 180_000, everyMs: 500, signal: c.ctx.signal },
      ).catch(() => undefined);
      if (oom) {
        const pod = oom.pod;
        // What users see: `kubectl get pods` showing the kill (OOMKilled, then CrashLoopBackOff), the last state.
        getPods = await until(
          'kubectl get pods showing OOMKilled',
          async () => {
            const text = await c.k.kubectl(['get', 'pods', '-n', OPERATOR_NS]);
            return statusOf(text, pod).includes('OOMKilled') && text;
          },
          { timeoutMs: 90_000, everyMs: 200, signal: c.ctx.signal },
        ).catch(async () => c.k.kubectl(['get', 'pods', '-n', OPERATOR_NS]));
        const jp = 'jsonpath={.status.containerStatuses[0].lastState.terminated}';
        described =
          strike?.lastState ?? (await c.k.kubectl(['get', 'pod', '-n', OPERATOR_NS, pod, '-o', jp]).catch(() => ''));
        // The kubelet may still be restarting the container: its previous log is there once it runs again.
        previousLog = await until(
          'the killed container log',
          async () => {
            const text = await podLogs(c.k, pod, true);
            return (
              !/unable to retrieve|Error from server|previous terminated container .* not found/.test(text) && text
            );
          },
          { timeoutMs: 60_000, everyMs: 1_000, signal: c.ctx.signal },
        ).catch(() => podLogs(c.k, pod, true));
      }
      c.log(`under ${low}Mi: ${oom ? `${oom.pod} OOMKilled after ${seconds(oom.ms)}` : 'no OOM kill'}\n${getPods}`);
    } finally {
      const tally = await churn.stop();
      c.log(`churn under the low limit: ${JSON.stringify(tally)}`);
    }
    // The scaffold's limit again.
    const t1 = performance.now();
    await deploy(c.ctx, c.k, { replicas: 2 });
    await operatorsReady(c.k, 2, c.ctx.signal);
    const { ms, verdict } = await c.fleet.converge(240_000, c.ctx.signal);
    const raisedMs = ms === undefined ? undefined : performance.now() - t1;
    // The killed container's log: it started, then stops mid-work with no shutdown line (the kernel's SIGKILL).
    const lines = previousLog.trim().split('\n');
    const started = lines.some((l) => l.includes('Starting helm-operator'));
    const stopped = lines.some((l) => l.includes('Stopping'));
    const last = (lines.at(-1) ?? '').slice(0, 140);
    return [
      row(
        `${this.title}: highest memory with the scaffold's limit (512 MiB), over install and churn`,
        `cgroup peak ${mib(peak.cgroup)}, operator RSS peak ${mib(peak.rss)}`,
        '',
        true,
      ),
      row(
        `${this.title}: margin to the scaffold's limit`,
        `${mib(SCAFFOLD_LIMIT - peak.cgroup)} (${((1 - peak.cgroup / SCAFFOLD_LIMIT) * 100).toFixed(0)} %)`,
        '> 0',
        peak.cgroup > 0 && peak.cgroup < SCAFFOLD_LIMIT,
      ),
      ...tallyRows(`${this.title} (scaffold limit)`, r1),
      row(
        `${this.title}: OOMKilled under ${low}Mi (kubectl get pods, lastState)`,
        oom ? `${seconds(oom.ms)}: ${oom.pod}; get pods: ${statusOf(getPods, oom.pod)}; ${described}` : 'never',
        'OOMKilled',
        oom !== undefined && statusOf(getPods, oom.pod).includes('OOMKilled') && described.includes('OOMKilled'),
      ),
      row(
        `${this.title}: an OOM kill while helm ran in the container (releases pending-* right after it)`,
        strike
          ? `${seconds(strike.ms)}: ${strike.pod}, ${strike.helm} helm install/upgrade running; pending right after: ${strike.pending.join(', ') || 'none'}; that container's lastState: ${strike.lastState}`
          : 'none',
        '≥ 1 pending',
        strike !== undefined && strike.pending.length > 0 && strike.lastState?.includes('OOMKilled') === true,
      ),
      row(
        `${this.title}: the killed container's log (kubectl logs --previous): started, cut off with no shutdown`,
        `${started ? 'started' : 'no start line'}, ${stopped ? 'a shutdown line' : 'no shutdown line'}; last: ${last}`,
        'started, cut off',
        started && !stopped,
      ),
      row(
        `${this.title}: scaffold limit restored to everything converged`,
        raisedMs === undefined ? 'not converged' : seconds(raisedMs),
        'converged',
        raisedMs !== undefined,
      ),
      ...tallyRows(`${this.title} (limit raised)`, { convergeMs: ms, verdict }),
    ];
  },
};
