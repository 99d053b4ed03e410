// Pause and on-demand reconciles against the real control plane and the real helm: a paused CR runs no helm and
// puts back no drift (Paused condition and events), is still uninstalled when deleted, and gets what changed once
// resumed; reconcile-requested-at and force-upgrade-at are each handled exactly once per value.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { isGone, isNotFound } from '../../support/kube.js';
import { crClient, type TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import {
  controllerIdle,
  controllerOf,
  type LogLine,
  linesOf,
  loggedSince,
  logMark,
  type ReconciledOptions,
  reconciledAfter,
} from '../../support/reconciles.js';

const A = 'helm.sdk.operatorframework.io/';
const PAUSED = `${A}paused`;
const REQUESTED = `${A}reconcile-requested-at`;
const FORCE = `${A}force-upgrade-at`;
const CHART_LABEL = `${A}chart`;

const READINESS_CHART = fileURLToPath(new URL('../../fixtures/charts/readiness', import.meta.url));

describe('pause and on-demand reconciles', () => {
  // No periodic reconcile: every reconcile below comes from a watch event. `Requested` has no dependent watches (and
  // a chart of its own, so that Paused's watches never see its objects): only a reconcile puts its Deployment back.
  const f = useOperatorFixture({
    kinds: ['Paused', { kind: 'Requested', chart: READINESS_CHART, extra: '  watchDependentResources: false\n' }],
    namespaces: ['op-pause'],
    operator: () => ({ args: ['--reconcile-period=0', '--zap-log-level=debug', '--metrics-bind-address=127.0.0.1:0'] }),
  });
  let requested: TestKind;
  let reqs: ReturnType<typeof crClient>;
  beforeAll(() => {
    requested = f.kinds[1] as TestKind;
    reqs = crClient(f.kube, requested, f.ns);
  });

  /** The helm calls made from now on (the startup `version` check aside). */
  const callsSince = () => {
    const mark = f.op.helmCalls().length;
    return () => f.op.helmCalls().slice(mark);
  };
  /** Sets (a string) or removes (undefined) annotations of a CR (read-modify-write, retried on conflict). */
  const annotate = (kind: TestKind, name: string, changes: Record<string, string | undefined>) =>
    crClient(f.kube, kind, f.ns).annotate(name, changes);
  const revision = async (crs: ReturnType<typeof crClient>, name: string) =>
    (await crs.get(name)).status?.deployedRelease?.revision;
  const status = async (crs: ReturnType<typeof crClient>, name: string) =>
    (await crs.get(name)).status as Record<string, unknown> | undefined;
  const events = async (name: string, reason: string) => {
    const list = await f.kube.core.listNamespacedEvent({
      namespace: f.ns,
      fieldSelector: `involvedObject.name=${name}`,
    });
    return list.items.filter((e) => e.reason === reason).reduce((n, e) => n + (e.count ?? 1), 0);
  };
  /** A Deployment by its full name: `<CR>-nginx` (sample chart, Paused) or `<CR>-web` (readiness chart, Requested). */
  const deployment = (name: string) => f.kube.apps.readNamespacedDeployment({ name, namespace: f.ns });
  const deploymentGone = (name: string) => isGone(() => deployment(name));
  const deleteDeployment = async (name: string) => {
    await f.kube.apps.deleteNamespacedDeployment({ name, namespace: f.ns }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
    await expect.poll(() => deploymentGone(name), POLL).toBe(true);
  };
  /** How many log lines of the operator have `msg` for the CR `name`. */
  const logged = (msg: string, name: string) =>
    f.op
      .output()
      .split('\n')
      .filter((l) => l.includes(`"msg":"${msg}"`) && l.includes(`"name":"${name}"`)).length;
  const deployed = async (crs: ReturnType<typeof crClient>, name: string) => {
    await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
  };
  const pause = async (name: string) => {
    await annotate(f.kind, name, { [PAUSED]: 'true' });
    await expect.poll(async () => (await f.crs.condition(name, 'Paused'))?.status, POLL).toBe('True');
  };
  /** Waits until the reconciles of `name` that the operator logged queuing since `from` are over (reconciles.ts). */
  const reconciled = (
    kind: TestKind,
    name: string,
    from: number,
    only: Pick<ReconciledOptions, 'count' | 'matching'>,
  ) => reconciledAfter(f.op, { controller: controllerOf(kind), key: `${f.ns}/${name}`, from, ...only });
  /** Accepts the trigger lines of a change to the dependent `name` (`event`: add, update or delete). */
  const dependent = (name: string, event: string) => (l: LogLine) =>
    l.trigger?.name === name && l.trigger.event === event;
  let sentinels = 0;
  /**
   * Waits until the operator's Deployment watch in the namespace (one, selecting the charts of the kinds with
   * dependent watches: Paused's) has delivered a Deployment created now, and then Requested's controller is idle. A
   * watch delivers in order: had it taken req-web, deleted before, that change would have been routed to req by then
   * and its reconcile be over. The sentinel is web-nginx's sibling (its chart label and owner, no replicas); the
   * reconcile of web it queues changes nothing.
   */
  const deploymentWatchCaughtUp = async () => {
    const from = logMark(f.op);
    const web = (await deployment('web-nginx')).metadata;
    const name = `sentinel-${++sentinels}`;
    const labels = { app: name, [CHART_LABEL]: web?.labels?.[CHART_LABEL] ?? '' };
    const pod = { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'idle', image: 'sentinel' }] } };
    await f.kube.apps.createNamespacedDeployment({
      namespace: f.ns,
      body: {
        metadata: { name, labels, ownerReferences: web?.ownerReferences ?? [] },
        spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: pod },
      },
    });
    await loggedSince(f.op, from, (l) => l.trigger?.name === name);
    await controllerIdle(f.op, controllerOf(requested));
  };

  it('ignores a spec change while paused (no helm, revision kept), and applies it on resume', async () => {
    await f.create('web', { replicaCount: 1 });
    await deployed(f.crs, 'web');
    const calls = callsSince();
    await pause('web');
    expect(await f.crs.condition('web', 'Paused')).toMatchObject({ reason: 'PausedByAnnotation' });
    await expect.poll(() => events('web', 'ReconcilePaused'), POLL).toBe(1);

    const idle = logged('Reconcile paused: nothing done', 'web');
    const mark = logMark(f.op);
    await f.crs.setSpec('web', { replicaCount: 2 });
    await annotate(f.kind, 'web', { [FORCE]: 'while-paused' }); // handled after the resume, in the same upgrade
    await expect.poll(() => logged('Reconcile paused: nothing done', 'web') - idle, POLL).toBeGreaterThan(0);
    // Both changes reached the controller, and the reconciles they queued are over.
    await reconciled(f.kind, 'web', mark, {
      count: 2,
      matching: (l) => l.msg === 'Custom resource changed: reconcile',
    });
    expect(calls()).toEqual([]);
    expect(await revision(f.crs, 'web')).toBe(1);
    expect((await deployment('web-nginx')).spec?.replicas).toBe(1);
    expect(await status(f.crs, 'web')).toMatchObject({ observedGeneration: 1 });
    expect((await status(f.crs, 'web'))?.lastHandledForceAt).toBeUndefined();

    await annotate(f.kind, 'web', { [PAUSED]: undefined });
    await expect.poll(() => revision(f.crs, 'web'), POLL).toBe(2);
    await expect.poll(async () => (await deployment('web-nginx')).spec?.replicas, POLL).toBe(2);
    await expect.poll(() => f.crs.condition('web', 'Paused'), POLL).toBeUndefined();
    await expect.poll(() => events('web', 'ReconcileResumed'), POLL).toBe(1);
    expect(await status(f.crs, 'web')).toMatchObject({ observedGeneration: 2, lastHandledForceAt: 'while-paused' });
    expect(calls()).toEqual(['upgrade']);
    expect(await events('web', 'ReconcilePaused')).toBe(1);
  });

  it('does not put back a deleted Deployment while paused, and does once resumed (no helm)', async () => {
    const calls = callsSince();
    await pause('web');
    const triggered = logged('Reconcile paused: nothing done', 'web');
    const mark = logMark(f.op);
    await deleteDeployment('web-nginx');
    // The Deployment's delete event reconciles its paused owner, which leaves it alone.
    await expect.poll(() => logged('Reconcile paused: nothing done', 'web') - triggered, POLL).toBeGreaterThan(0);
    await reconciled(f.kind, 'web', mark, { matching: dependent('web-nginx', 'delete') });
    expect(await deploymentGone('web-nginx')).toBe(true);
    await annotate(f.kind, 'web', { [PAUSED]: 'false' });
    await expect.poll(() => deploymentGone('web-nginx'), POLL).toBe(false);
    await expect.poll(() => f.crs.condition('web', 'Paused'), POLL).toBeUndefined();
    expect(calls()).toEqual([]);
    expect(await revision(f.crs, 'web')).toBe(2);
  });

  it('uninstalls a CR deleted while paused and frees it', async () => {
    await f.create('gone', { replicaCount: 1 });
    await deployed(f.crs, 'gone');
    await pause('gone');
    const calls = callsSince();
    await f.crs.delete('gone');
    await expect.poll(() => isGone(() => f.crs.get('gone')), POLL).toBe(true);
    expect(calls()).toEqual([]); // uninstalled in-process: no helm process
    const secrets = await f.kube.core.listNamespacedSecret({ namespace: f.ns, labelSelector: 'owner=helm,name=gone' });
    expect(secrets.items).toEqual([]);
  });

  it('handles reconcile-requested-at once per value: drift put back on request, recorded, and not again', async () => {
    f.track(requested, f.ns, 'req');
    await reqs.create('req', {});
    await deployed(reqs, 'req');
    const calls = callsSince();
    let mark = logMark(f.op);
    await deleteDeployment('req-web');
    await deploymentWatchCaughtUp();
    expect(linesOf(f.op, `${f.ns}/req`, mark)).toEqual([]); // not queued, not reconciled
    expect(await deploymentGone('req-web')).toBe(true); // no dependent watch, no period: nothing reconciles it

    await annotate(requested, 'req', { [REQUESTED]: 'r1' });
    await expect.poll(() => deploymentGone('req-web'), POLL).toBe(false);
    await expect.poll(async () => (await status(reqs, 'req'))?.lastHandledReconcileAt, POLL).toBe('r1');

    mark = logMark(f.op);
    await deleteDeployment('req-web');
    const version = (await reqs.get('req')).metadata.resourceVersion;
    await annotate(requested, 'req', { [REQUESTED]: 'r1' }); // the same value: no change, nothing to do
    expect((await reqs.get('req')).metadata.resourceVersion).toBe(version); // not even a watch event
    await deploymentWatchCaughtUp();
    expect(linesOf(f.op, `${f.ns}/req`, mark)).toEqual([]); // not queued, not reconciled
    expect(await deploymentGone('req-web')).toBe(true);

    await annotate(requested, 'req', { [REQUESTED]: 'r2' });
    await expect.poll(() => deploymentGone('req-web'), POLL).toBe(false);
    await expect.poll(async () => (await status(reqs, 'req'))?.lastHandledReconcileAt, POLL).toBe('r2');
    expect(calls()).toEqual([]);
    expect(logged('Reconcile requested', 'req')).toBe(2);
  });

  it('handles force-upgrade-at once per value: one upgrade with the spec unchanged, none for the same value', async () => {
    const calls = callsSince();
    await annotate(requested, 'req', { [FORCE]: 'f1' });
    await expect.poll(() => revision(reqs, 'req'), POLL).toBe(2);
    await expect.poll(async () => (await status(reqs, 'req'))?.lastHandledForceAt, POLL).toBe('f1');
    expect(calls()).toEqual(['upgrade']);
    expect(logged('Force upgrade handled', 'req')).toBe(1);

    await annotate(requested, 'req', { [REQUESTED]: 'r3' }); // a reconcile with the same force value
    await expect.poll(async () => (await status(reqs, 'req'))?.lastHandledReconcileAt, POLL).toBe('r3');
    expect(calls()).toEqual(['upgrade']);
    expect(await revision(reqs, 'req')).toBe(2);
  });

  it('records force-upgrade-at on a CR without a release after its install, with no upgrade on top', async () => {
    const calls = callsSince();
    f.track(requested, f.ns, 'fresh');
    await reqs.create('fresh', {}, { annotations: { [FORCE]: 'at-birth' } });
    await deployed(reqs, 'fresh');
    await expect.poll(async () => (await status(reqs, 'fresh'))?.lastHandledForceAt, POLL).toBe('at-birth');
    expect(calls()).toEqual(['install']);
    expect(await revision(reqs, 'fresh')).toBe(1);
  });
});
