// Cases 1 and 2 of the node group: the kubelet, then containerd, restarted on the node while CRs change and go: the
// operator pods keep running (same pods, no container restart), every CR converges, nothing is left pending. Used by
// index.ts; restarts only the plane's own daemons (by their PID files).
import { until } from '../../../test/support/until.ts';
import { row } from '../../kit/scenario.ts';
import { type CaseContext, churnAround, type NodeCase, tallyRows } from './case.ts';
import { type Daemon, restartDaemon } from './daemons.ts';
import { operatorPods } from './deploy.ts';

const NODE_READY_MS = 60_000;

function daemonCase(d: Daemon, n: number): NodeCase {
  const title = `${n} ${d} restarted`;
  return {
    name: d,
    title,
    async run(c: CaseContext) {
      const before = await operatorPods(c.k);
      let downMs = 0;
      let readyMs: number | undefined;
      const r = await churnAround(c, async () => {
        const t0 = performance.now();
        const restarted = await restartDaemon(c.ctx.plane.dir, d, c.ctx.signal);
        downMs = restarted.downMs;
        // The node reports Ready again (the kubelet's heartbeat; for containerd, the runtime answering CRI).
        readyMs = await until(
          'the node Ready again',
          async () => {
            const nodes = await c.k.core.listNode();
            const ready = nodes.items.every((node) =>
              node.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'),
            );
            const pods = await operatorPods(c.k);
            return ready && pods.every((p) => p.ready) && performance.now() - t0;
          },
          { timeoutMs: NODE_READY_MS, everyMs: 500, signal: c.ctx.signal },
        ).catch(() => undefined);
        c.log(`${d} restarted (pid ${restarted.pid}) in ${Math.round(downMs)} ms`);
      });
      const after = await operatorPods(c.k);
      const kept = before.every((b) => after.some((a) => a.uid === b.uid && a.restarts === b.restarts && a.ready));
      const shown = after.map((p) => `${p.name} ${p.ready ? 'Ready' : 'not Ready'}, ${p.restarts} restarts`).join('; ');
      return [
        row(`${title}: ${d} stopped and started again`, `${(downMs / 1000).toFixed(1)} s`, '', true),
        row(
          `${title}: node and operator pods Ready again`,
          readyMs === undefined ? 'not within 60 s' : `${(Number(readyMs) / 1000).toFixed(1)} s`,
          '≤ 60 s',
          readyMs !== undefined,
        ),
        row(`${title}: operator pods kept running (same pods, no restart)`, shown, 'kept', kept),
        ...tallyRows(title, r),
      ];
    },
  };
}

export const kubeletCase = daemonCase('kubelet', 1);
export const containerdCase = daemonCase('containerd', 2);
