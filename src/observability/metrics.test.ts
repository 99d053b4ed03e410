// OperatorMetrics: every family appears in the text exposition with controller-runtime's names and labels.
import { describe, expect, it } from 'vitest';
import { OperatorMetrics } from './metrics.js';

// Keys deliberately out of order: the output must still follow the declared label order.
const cr = { kind: 'Nginx', group: 'demo.example.com', version: 'v1alpha1', name: 'web', namespace: 'ns1' };

describe('OperatorMetrics', () => {
  it('renders every family with the expected labels after the calls', async () => {
    const m = new OperatorMetrics({ version: '1.2.3' });
    const c = m.controller('nginx-controller');
    let depth = 3;
    c.init(4, () => depth);
    c.queueAdd();
    c.queueGet('ns1/web', 0.002);
    c.activeWorkers(1);
    c.reconciled('success', 0.3);
    c.reconciled('error', 0.01);
    c.reconciled('requeue_after', 0.02);
    c.activeWorkers(-1);
    c.queueRetry();
    c.queueGet('ns1/other', 0);
    m.resourceSeen(cr, '2024-01-02T03:04:05Z');
    m.helmExec('install', 'success', 1.5);
    m.helmExec('upgrade', 'error', 0.5);
    depth = 7;
    const { contentType, body } = await m.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const q = 'name="nginx-controller",controller="nginx-controller"';
    for (const line of [
      'controller_runtime_reconcile_total{controller="nginx-controller",result="success"} 1',
      'controller_runtime_reconcile_total{controller="nginx-controller",result="error"} 1',
      'controller_runtime_reconcile_total{controller="nginx-controller",result="requeue_after"} 1',
      'controller_runtime_reconcile_total{controller="nginx-controller",result="requeue"} 0',
      'controller_runtime_reconcile_errors_total{controller="nginx-controller"} 1',
      'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="nginx-controller"} 0',
      'controller_runtime_reconcile_time_seconds_bucket{le="60",controller="nginx-controller"} 3',
      'controller_runtime_reconcile_time_seconds_count{controller="nginx-controller"} 3',
      'controller_runtime_max_concurrent_reconciles{controller="nginx-controller"} 4',
      'controller_runtime_active_workers{controller="nginx-controller"} 0',
      `workqueue_depth{${q}} 7`,
      `workqueue_adds_total{${q}} 1`,
      `workqueue_retries_total{${q}} 1`,
      `workqueue_queue_duration_seconds_bucket{le="1e-8",${q}} 1`,
      `workqueue_queue_duration_seconds_bucket{le="1000",${q}} 2`,
      `workqueue_queue_duration_seconds_count{${q}} 2`,
      'helm_operator_build_info{version="1.2.3",commit="unknown"} 1',
      'resource_created_at_seconds{name="web",namespace="ns1",group="demo.example.com",version="v1alpha1",kind="Nginx"} 1704164645',
      'helm_operator_helm_exec_duration_seconds_count{action="install",result="success"} 1',
      'helm_operator_helm_exec_duration_seconds_count{action="upgrade",result="error"} 1',
    ]) {
      expect(body.split('\n')).toContain(line);
    }
    // Two keys are being processed: unfinished work and the longest processor are measured at scrape time.
    expect(body).toMatch(new RegExp(`^workqueue_unfinished_work_seconds\\{${q}\\} \\d`, 'm'));
    expect(body).toMatch(new RegExp(`^workqueue_longest_running_processor_seconds\\{${q}\\} \\d`, 'm'));
    expect(body).toMatch(/^process_cpu_seconds_total \d/m);
    expect(body).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('finishes work and drops a deleted resource series', async () => {
    const m = new OperatorMetrics({ version: '0.1.0', commit: 'abc', defaultMetrics: false });
    const c = m.controller('x-controller');
    c.init(1, () => 0);
    c.queueGet('a/b', 0.1);
    c.queueDone('a/b', 0.25);
    m.resourceSeen(cr, '2024-01-02T03:04:05Z');
    m.resourceSeen({ ...cr, name: 'bad' }, 'not a time');
    m.resourceDeleted(cr);
    const { body } = await m.render();
    const q = 'name="x-controller",controller="x-controller"';
    expect(body).toContain(`workqueue_work_duration_seconds_count{${q}} 1`);
    expect(body).toContain(`workqueue_unfinished_work_seconds{${q}} 0`);
    expect(body).toContain(`workqueue_longest_running_processor_seconds{${q}} 0`);
    expect(body).toContain('helm_operator_build_info{version="0.1.0",commit="abc"} 1');
    expect(body).not.toMatch(/^resource_created_at_seconds\{/m);
    expect(body).not.toContain('process_cpu_seconds_total');
  });

  it('times helm up to 10 minutes, past the 5m helm timeout, and counts slow helm runs at each scrape', async () => {
    const m = new OperatorMetrics({ version: '0.1.0', defaultMetrics: false });
    let slow = { install: 0, upgrade: 2 };
    m.helmStillRunning(() => slow);
    m.helmExec('install', 'error', 330);
    let { body } = await m.render();
    expect(body).toContain(
      'helm_operator_helm_exec_duration_seconds_bucket{le="300",action="install",result="error"} 0',
    );
    expect(body).toContain(
      'helm_operator_helm_exec_duration_seconds_bucket{le="600",action="install",result="error"} 1',
    );
    expect(body).toContain('helm_operator_helm_still_running{action="upgrade"} 2');
    slow = { install: 0, upgrade: 0 };
    ({ body } = await m.render());
    expect(body).toContain('helm_operator_helm_still_running{action="upgrade"} 0');
  });

  it("shows each controller's chart rollout counts as gauges", async () => {
    const m = new OperatorMetrics({ version: '0.1.0', defaultMetrics: false });
    m.chartRollout('web-controller', { pending: 18, upgraded: 1, failed: 1 });
    m.chartRollout('web-controller', { pending: 17, upgraded: 2, failed: 1 });
    const { body } = await m.render();
    expect(body).toContain('# TYPE helm_operator_chart_rollout_pending gauge');
    expect(body).toContain('helm_operator_chart_rollout_pending{controller="web-controller"} 17');
    expect(body).toContain('helm_operator_chart_rollout_upgraded{controller="web-controller"} 2');
    expect(body).toContain('helm_operator_chart_rollout_failed{controller="web-controller"} 1');
  });
});
