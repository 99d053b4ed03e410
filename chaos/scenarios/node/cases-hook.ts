// Case 7 of the node group: a post-upgrade hook Job whose real container exits 1. ReleaseFailed (UpgradeError) names
// the hook and its Job, the upgrade is rolled back to the last deployed revision (the operator's remediation: the
// ConfigMap shows the old value again, the latest revision is `Rollback to N`), and a later good spec upgrades. Used
// by index.ts; changes one CR of the fleet.
import { until } from '../../../test/support/until.ts';
import { crs } from '../../kit/kube.ts';
import { row, seconds } from '../../kit/scenario.ts';
import { type CaseContext, CONVERGE_MS, type NodeCase, tallyRows } from './case.ts';
import { NS } from './fleet.ts';

export const hookCase: NodeCase = {
  name: 'hook',
  title: '7 hook Job exits 1',
  async run(c: CaseContext) {
    const { k, fleet, ctx } = c;
    const poll = { timeoutMs: 180_000, everyMs: 1_000, signal: ctx.signal };
    const name = fleet.liveNames()[0];
    if (!name) throw new Error('no live CR');
    const job = `${name}-hook`;
    const cr = crs(k, NS);
    const before = await fleet.releases(name);
    const deployed = before.filter((r) => r.info?.status === 'deployed').at(-1);
    const oldData = (await k.core.readNamespacedConfigMap({ name: `${name}-data`, namespace: NS })).data?.data;
    const t0 = performance.now();
    await fleet.patch(name, { data: 'hook-fails', hook: { exitCode: 1 } });
    const failed = await until(
      'ReleaseFailed=True naming the hook and its Job',
      async () => {
        const cond = await cr.condition(name, 'ReleaseFailed');
        return cond?.status === 'True' && cond.reason === 'UpgradeError' && cond;
      },
      poll,
    );
    const failedMs = performance.now() - t0;
    const message = failed.message ?? '';
    const namesHook = /post-upgrade/.test(message) && message.includes(job);
    // The hook's pod: a real container that exited 1.
    const pods = await k.core.listNamespacedPod({ namespace: NS, labelSelector: `job-name=${job}` });
    const exitCodes = pods.items.map((p) => p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode);
    // The remediation: a rollback to the revision deployed before, as a new revision.
    const rolledBack = await until(
      'the failed upgrade rolled back',
      async () => {
        const revs = await fleet.releases(name);
        const latest = revs.at(-1);
        const cm = await k.core.readNamespacedConfigMap({ name: `${name}-data`, namespace: NS });
        const ok =
          latest?.info?.status === 'deployed' &&
          latest.info.description === `Rollback to ${deployed?.version}` &&
          cm.data?.data === oldData;
        return ok && `${latest.info?.description} (revision ${latest.version}), data ${cm.data?.data}`;
      },
      poll,
    ).catch(() => undefined);
    const events = await k.kubectl(['get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${name}`]);
    const failEvent = events.split('\n').find((l) => l.includes('UpgradeFailed')) ?? '';
    c.log(`ReleaseFailed: ${message}\nevent: ${failEvent}`);
    const t1 = performance.now();
    await fleet.patch(name, { data: 'hook-fixed', hook: { exitCode: 0 } });
    const { ms, verdict } = await fleet.converge(CONVERGE_MS, ctx.signal);
    const fixedMs = ms === undefined ? undefined : performance.now() - t1;
    const readyAgain = (await cr.condition(name, 'ReleaseFailed'))?.status !== 'True';
    return [
      row(
        `${this.title}: ReleaseFailed=True (UpgradeError) names the post-upgrade hook and Job ${job}`,
        `${seconds(failedMs)}: ${message.replaceAll('\n', ' ').slice(0, 160)}`,
        'names both',
        namesHook,
      ),
      row(
        `${this.title}: the hook's container exit codes`,
        exitCodes.join(', ') || 'no pod',
        '1',
        exitCodes.includes(1),
      ),
      row(
        `${this.title}: rolled back to revision ${deployed?.version} (the remediation)`,
        rolledBack ?? 'not rolled back',
        'rolled back',
        rolledBack !== undefined,
      ),
      row(`${this.title}: UpgradeFailed event`, failEvent ? 'yes' : 'none', 'yes', failEvent !== ''),
      row(
        `${this.title}: a good spec afterwards upgrades (ReleaseFailed cleared)`,
        fixedMs === undefined ? 'not converged' : seconds(fixedMs),
        'converged',
        fixedMs !== undefined && readyAgain,
      ),
      ...tallyRows(this.title, { convergeMs: ms, verdict }),
    ];
  },
};
