// Case 6 of the node group: the operand's image cannot be pulled. One CR's spec names an app image no registry serves
// (a local name: the node's containerd tries localhost and fails, nothing leaves the machine); the upgrade and its hook
// succeed, the new pod waits in ImagePullBackOff on the real kubelet, and Ready=False names ImagePullBackOff, the
// Deployment, the pod and the container in `kubectl get` and in one Warning event. The spec fixed, Ready=True. Used
// by index.ts; changes one CR of the fleet.
import { until } from '../../../test/support/until.ts';
import { crs, KIND } from '../../kit/kube.ts';
import { row, seconds } from '../../kit/scenario.ts';
import { type CaseContext, CONVERGE_MS, type NodeCase, tallyRows } from './case.ts';
import { leaderPod, podLogs } from './deploy.ts';
import { NS } from './fleet.ts';

/** A local name that no image store on the node holds: pulling it fails at once (connection refused). */
const MISSING_IMAGE = 'localhost/chaos-node/missing:1.0';

export const imageCase: NodeCase = {
  name: 'imagepull',
  title: '6 image cannot be pulled',
  async run(c: CaseContext) {
    const { k, fleet, ctx } = c;
    const poll = { timeoutMs: 180_000, everyMs: 500, signal: ctx.signal };
    const name = fleet.liveNames()[0];
    if (!name) throw new Error('no live CR');
    const deployment = `${name}-app`;
    const cr = crs(k, NS);
    const ready = () => cr.condition(name, 'Ready');
    const t0 = performance.now();
    await fleet.patch(name, { data: 'image-missing', appImage: MISSING_IMAGE });
    // The kubelet's own report on the pod, read through the API: its container waits to pull the image.
    const podState = await until(
      'the new pod waiting in ImagePullBackOff or ErrImagePull',
      async () => {
        const pods = await k.core.listNamespacedPod({ namespace: NS, labelSelector: `app=${deployment}` });
        const waiting = pods.items
          .map((p) => `${p.metadata?.name}: ${p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''}`)
          .find((s) => /ImagePullBackOff|ErrImagePull/.test(s));
        return waiting;
      },
      poll,
    ).catch(() => 'none');
    const podMs = performance.now() - t0;
    const cond = await until(
      'Ready=False naming ImagePullBackOff',
      async () => {
        const r = await ready();
        return r?.status === 'False' && r.reason === 'ImagePullBackOff' && r;
      },
      poll,
    ).catch(() => undefined);
    const shownMs = performance.now() - t0;
    const message = cond?.message ?? '';
    const namesObject = message.startsWith(`Deployment ${NS}/${deployment}: pod ${deployment}-`);
    const namesContainer = message.endsWith(': container main: ImagePullBackOff');
    // What users see: `kubectl get` of the CR (its Ready status, reason and message) and its events.
    const columns =
      'custom-columns=READY:.status.conditions[?(@.type=="Ready")].status,' +
      'REASON:.status.conditions[?(@.type=="Ready")].reason,MESSAGE:.status.conditions[?(@.type=="Ready")].message';
    const got = await k.kubectl(['get', `${KIND.plural}.${KIND.group}`, name, '-n', NS, '-o', columns]);
    const shown = got.split('\n')[1]?.trim() ?? '';
    const event = await until(
      'a Warning ImagePullBackOff event on the CR',
      async () => {
        const list = await k.core.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` });
        const found = list.items.filter((e) => e.type === 'Warning' && e.reason === 'ImagePullBackOff');
        return found.length > 0 && found;
      },
      poll,
    ).catch(() => []);
    const eventMs = performance.now() - t0;
    // One event per transition: the reconciles that follow (the sooner requeue) send none. Waited for 2 rechecks.
    await until('two rechecks after the event', async () => performance.now() - t0 > eventMs + 12_000, poll);
    const events = (
      await k.core.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${name}` })
    ).items.filter((e) => e.reason === 'ImagePullBackOff');
    const count = events.reduce((n, e) => n + (e.series?.count ?? e.count ?? 1), 0);
    const leaks = [message, ...events.map((e) => e.message ?? '')].filter((m) => m.includes(MISSING_IMAGE));
    const log = (await podLogs(k, await leaderPod(k))).split('\n');
    const noted = log.filter((l) => l.includes('Release not ready') && l.includes(`${deployment}:`));
    c.log(
      `pod: ${podState}\nkubectl get: ${shown}\nevents: ${events.map((e) => `${e.count}x ${e.message}`).join('; ')}`,
    );
    c.log(`leader's "Release not ready" lines: ${noted.length}\n${noted.join('\n')}`);
    const t1 = performance.now();
    await fleet.patch(name, { data: 'image-fixed', appImage: '' });
    const fixedMs = await until(
      'Ready=True after the fix',
      async () => (await ready())?.status === 'True' && performance.now() - t1,
      poll,
    ).catch(() => undefined);
    const { ms, verdict } = await fleet.converge(CONVERGE_MS, ctx.signal);
    return [
      row(
        `${this.title}: the new pod waits (the kubelet's report)`,
        `${seconds(podMs)}: ${podState}`,
        'waiting',
        podState !== 'none',
      ),
      row(
        `${this.title}: Ready=False/ImagePullBackOff names Deployment ${deployment}, its pod and container (kubectl get)`,
        cond ? `${seconds(shownMs)}: ${shown}` : 'not shown',
        'names all',
        cond !== undefined && namesObject && namesContainer && shown.includes('ImagePullBackOff'),
      ),
      row(
        `${this.title}: Warning ImagePullBackOff event, once per transition`,
        event.length > 0 ? `${seconds(eventMs)}; count ${count} after 12 s more` : 'none',
        '1',
        event.length > 0 && count === 1,
      ),
      row(
        `${this.title}: the image name in the condition or the event`,
        leaks.length ? 'shown' : 'never',
        'never',
        leaks.length === 0,
      ),
      row(
        `${this.title}: spec fixed → Ready=True`,
        fixedMs === undefined ? 'not within 180 s' : seconds(Number(fixedMs)),
        'True',
        fixedMs !== undefined,
      ),
      ...tallyRows(this.title, { convergeMs: ms, verdict }),
    ];
  },
};
