// The real operator's metrics and probe servers: /readyz turns 200 once the informers synced, and after one CR is
// installed /metrics shows controller-runtime's reconcile and workqueue families, helm timings, the CR's creation
// time, build info, drift corrections, the dependent cache size and Node process metrics.
import { beforeAll, describe, expect, it } from 'vitest';
import { boundAddress, type ServerMessage } from '../../support/addresses.js';
import { isGone, type TestKube } from '../../support/kube.js';
import type { crClient, OperatorProcess, TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

describe('the operator, with metrics and probes on', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns: string;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;
  const name = 'observed';

  /** The bound address the operator logged for a server ("Serving metrics" / "Serving health probes"). */
  const address = (msg: ServerMessage): string | undefined => boundAddress(op.output(), msg);
  const get = async (addr: string | undefined, path: string) => {
    const res = await fetch(`http://${addr}${path}`);
    return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
  };

  const f = useOperatorFixture({
    kinds: ['Observed'],
    namespaces: ['op-metrics'],
    // No periodic requeue, so a reconcile of a ready release counts as result="success" (one that finds the Deployment
    // not yet ready asks for a pod recheck, "requeue_after"); the uninstall goes to helm, whose calls the helm
    // metrics time (an in-process one runs no helm).
    operator: () => ({
      args: [
        '--metrics-bind-address=127.0.0.1:0',
        '--health-probe-bind-address=127.0.0.1:0',
        '--reconcile-period=0',
        '--in-process-uninstall=false',
      ],
    }),
  });
  beforeAll(() => {
    ({ kube, kind, ns, op, crs } = f);
    // Deleted while the operator runs, so the release is uninstalled and the finalizer removed.
    f.track(kind, ns, name);
  });

  it('answers /healthz at once and /readyz with 200 once the controller synced', async () => {
    await expect.poll(() => address('Serving health probes'), POLL).toMatch(/^127\.0\.0\.1:\d+$/);
    const probe = address('Serving health probes');
    expect(await get(probe, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    await expect.poll(async () => (await get(probe, '/readyz')).status, POLL).toBe(200);
    expect((await get(probe, '/readyz')).body).toBe('ok');
  });

  it('exposes every family on /metrics after a CR is deployed', async () => {
    await crs.create(name, { replicaCount: 1 });
    await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    const metricsAt = address('Serving metrics');
    expect(metricsAt).toMatch(/^127\.0\.0\.1:\d+$/);
    const controller = `${kind.kind.toLowerCase()}-controller`;
    const c = `controller="${controller}"`;
    const q = `name="${controller}",${c}`;
    // The install's reconcile is counted when the worker finishes, just after the status write.
    await expect
      .poll(async () => (await get(metricsAt, '/metrics')).body, POLL)
      .toMatch(new RegExp(`^controller_runtime_reconcile_total\\{${c},result="success"\\} [1-9]`, 'm'));
    const res = await get(metricsAt, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = res.body.split('\n');
    const shown = lines.filter((l) => !l.startsWith('#') && !/_bucket|^nodejs_|^process_/.test(l)).join('\n');
    const has = (prefix: string) =>
      expect(
        lines.some((l) => l.startsWith(prefix)),
        `${prefix} in\n${shown}`,
      ).toBe(true);
    // Every result's series is there from the start; requeue_after is 1 when the install's reconcile found the
    // Deployment not yet ready (timing), else 0.
    has(`controller_runtime_reconcile_total{${c},result="requeue_after"} `);
    has(`controller_runtime_reconcile_total{${c},result="requeue"} 0`);
    has(`controller_runtime_reconcile_errors_total{${c}} `);
    has(`controller_runtime_reconcile_time_seconds_bucket{le="0.005",${c}} `);
    has(`controller_runtime_reconcile_time_seconds_count{${c}} `);
    has(`controller_runtime_max_concurrent_reconciles{${c}} `);
    has(`controller_runtime_active_workers{${c}} `);
    for (const family of ['depth', 'unfinished_work_seconds', 'longest_running_processor_seconds']) {
      has(`workqueue_${family}{${q}} `);
    }
    expect(lines).not.toContain(`workqueue_adds_total{${q}} 0`);
    has(`workqueue_adds_total{${q}} `);
    has(`workqueue_retries_total{${q}} `);
    has(`workqueue_queue_duration_seconds_count{${q}} `);
    has(`workqueue_work_duration_seconds_count{${q}} `);
    has('helm_operator_helm_exec_duration_seconds_count{action="install",result="success"} 1');
    has('helm_operator_helm_exec_duration_seconds_count{action="version",result="success"} 1');
    has('helm_operator_build_info{version="0.1.0",commit="unknown"} 1');
    const cr = await crs.get(name);
    const created = (cr.metadata as { creationTimestamp?: string }).creationTimestamp ?? '';
    has(
      `resource_created_at_seconds{name="${name}",namespace="${ns}",group="${kind.group}",version="${kind.version}",kind="${kind.kind}"} ${Date.parse(created) / 1000}`,
    );
    has('process_cpu_seconds_total ');
  });

  it('counts a drift repair in helm_operator_drift_corrections_total and shows the dependent cache size', async () => {
    const cm = `${name}-nginx`;
    await kube.core.deleteNamespacedConfigMap({ name: cm, namespace: ns });
    const metricsAt = address('Serving metrics');
    const c = `controller="${kind.kind.toLowerCase()}-controller"`;
    await expect
      .poll(async () => (await get(metricsAt, '/metrics')).body, POLL)
      .toContain(`helm_operator_drift_corrections_total{${c},kind="ConfigMap",action="created"} 1`);
    expect((await kube.core.readNamespacedConfigMap({ name: cm, namespace: ns })).metadata?.name).toBe(cm);
    // The release's Deployment, Service and ConfigMap, and nothing else: the informers are label-selected.
    expect((await get(metricsAt, '/metrics')).body).toMatch(/^helm_operator_dependent_objects_cached 3$/m);
  });

  it("times the uninstall and drops the CR's resource_created_at_seconds series when it is deleted", async () => {
    await crs.delete(name);
    await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
    const metricsAt = address('Serving metrics');
    await expect
      .poll(async () => (await get(metricsAt, '/metrics')).body, POLL)
      .toContain('helm_operator_helm_exec_duration_seconds_count{action="uninstall",result="success"} 1');
    expect((await get(metricsAt, '/metrics')).body).not.toContain(`resource_created_at_seconds{name="${name}"`);
  });
});
