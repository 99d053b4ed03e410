// A chart folder removed under the running operator, against the real control plane and helm: a copy of
// test/fixtures/charts/failing in a temp folder is the watch's chart; with the folder removed, the next reconcile (a
// spec change) makes the CR Irreconcilable with a message naming the folder, replacing an older UpgradeError, and
// records a ReconcileError event naming it too; no helm runs meanwhile; with the folder back, a requested reconcile
// makes it Deployed with the new spec.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILING_CHART } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const ROOT = mkdtempSync(join(tmpdir(), 'chart-gone-'));
const CHART = join(ROOT, 'failing');
cpSync(FAILING_CHART, CHART, { recursive: true });
const REQUESTED = 'helm.sdk.operatorframework.io/reconcile-requested-at';

describe('a chart folder removed under the running operator', () => {
  const f = useOperatorFixture({ kinds: [{ kind: 'ChartGone', chart: CHART }], namespaces: ['op-chart-gone'] });
  f.onFinalCleanup(async () => rmSync(ROOT, { recursive: true, force: true }));
  const data = async () =>
    (await f.kube.core.readNamespacedConfigMap({ name: 'app-data', namespace: f.ns })).data?.data;
  const events = async (reason: string) =>
    (await f.kube.core.listNamespacedEvent({ namespace: f.ns, fieldSelector: `involvedObject.name=app` })).items.filter(
      (e) => e.reason === reason,
    );
  /** status.state, the STATUS column's word. */
  const state = async () => ((await f.crs.get('app')).status as { state?: string } | undefined)?.state;
  const helmCalls = () => f.op.helmCalls().filter((c) => c !== 'version');

  it('names the folder in the condition, replacing the older error, and in an event; recovers once it is back', async () => {
    await f.create('app', { data: 'v1' });
    await expect.poll(async () => (await f.crs.condition('app', 'Deployed'))?.status, POLL).toBe('True');
    // An older, unrelated error first.
    await f.crs.setSpec('app', { data: 'v2', invalidObject: true });
    await expect.poll(async () => (await f.crs.condition('app', 'ReleaseFailed'))?.reason, POLL).toBe('UpgradeError');

    rmSync(CHART, { recursive: true });
    const calls = helmCalls().length;
    const removed = performance.now();
    await f.crs.setSpec('app', { data: 'v3' });
    await expect
      .poll(async () => (await f.crs.condition('app', 'Irreconcilable'))?.message, POLL)
      .toContain(`chart ${CHART} cannot be read: it does not exist`);
    const latency = performance.now() - removed;
    process.stdout.write(
      `chart gone: spec change to the Irreconcilable condition naming it in ${Math.round(latency)} ms\n`,
    );
    const cr = await f.crs.get('app');
    expect(cr.status?.conditions?.find((c) => c.type === 'ReleaseFailed')).toBeUndefined();
    expect(await state()).toBe('Irreconcilable');
    await expect
      .poll(async () => (await events('ReconcileError')).map((e) => e.message), POLL)
      .toContainEqual(expect.stringContaining(`chart ${CHART} cannot be read`));
    const [event] = await events('ReconcileError');
    expect(event?.type).toBe('Warning');
    expect(helmCalls().length).toBe(calls); // nothing was run with a chart that is not there
    expect(f.op.output()).toContain('CHART_UNREADABLE');

    cpSync(FAILING_CHART, CHART, { recursive: true });
    await f.crs.annotate('app', { [REQUESTED]: new Date().toISOString() });
    await expect.poll(data, POLL).toBe('v3');
    await expect.poll(state, POLL).toBe('Deployed');
    expect(await f.crs.condition('app', 'Irreconcilable')).toBeUndefined();
  });
});
