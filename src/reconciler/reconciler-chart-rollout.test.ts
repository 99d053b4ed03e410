// The reconciler with a chart rollout gate: a chart-driven upgrade held behind another CR's canary runs no helm,
// keeps the deployed release and shows ChartRollout=Waiting (event once, short requeue); the CR's own spec change
// upgrades at once; once the canary succeeded the held CR upgrades and the condition goes.
import { describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, NGINX_CHART as chart, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { ChartRolloutGate } from '../chart-rollout/gate.js';
import { silentLogger } from '../core/logger.js';
import { FINGERPRINT_LABEL } from '../records/release-state.js';
import { chartDigest } from './inputs/fingerprint.js';
import { HelmReconciler } from './reconciler.js';
import type { HelmAppStatus } from './types.js';

const signal = new AbortController().signal;

function world() {
  const store = new CrStore(nginxCr({ replicaCount: 1 }));
  const { helm, history } = helmWithHistory();
  const events: string[] = [];
  const gate = new ChartRolloutGate({ controller: 'nginx-controller', logger: silentLogger });
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      events: { event: (_cr, type, reason) => events.push(`${type}:${reason}`) },
      crs: store.access,
      releases: { history: async () => history.list() },
      helm,
      chartRollout: gate,
    }),
  );
  /** The deployed revision as an older chart made it: another fingerprint, the values helm stored as config. */
  const olderChart = () => {
    const i = history.revisions.findIndex((h) => h.release.info.status === 'deployed');
    const h = history.revisions[i];
    if (!h) throw new Error('nothing deployed');
    const config = store.live().spec as Record<string, unknown>;
    history.revisions[i] = { release: { ...h.release, config }, labels: { [FINGERPRINT_LABEL]: 'older-chart' } };
  };
  return {
    gate,
    events,
    history,
    olderChart,
    reconcile: () => reconciler.reconcile('apps/web', signal),
    upgrades: () => helm.calls.filter((c) => c.command === 'upgrade').length,
    condition: (type: string) => (store.live().status as HelmAppStatus).conditions.find((c) => c.type === type),
    setSpec(spec: unknown) {
      const cr = store.live();
      store.bump(cr, { spec, metadata: { ...cr.metadata, generation: (cr.metadata.generation ?? 0) + 1 } });
    },
  };
}

describe('HelmReconciler with a chart rollout', () => {
  it('holds a chart-driven upgrade behind the canary: no helm, the release kept, ChartRollout=Waiting', async () => {
    const w = world();
    await w.reconcile(); // install
    w.olderChart();
    const canary = w.gate.admit('apps/canary', await chartDigest(chart, { signal }));
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5000 });
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5000 });
    expect(w.upgrades()).toBe(0);
    expect(w.condition('ChartRollout')).toMatchObject({ status: 'True', reason: 'Waiting' });
    expect(w.condition('ChartRollout')?.message).toContain('waiting for the canary apps/canary');
    expect(w.condition('Deployed')).toMatchObject({ status: 'True' });
    expect(w.events.filter((e) => e === 'Normal:ChartRolloutWaiting')).toHaveLength(1);

    if ('done' in canary) canary.done('success');
    await w.reconcile();
    expect(w.upgrades()).toBe(1);
    expect(w.condition('ChartRollout')).toBeUndefined();
  });

  it("never holds the CR's own spec change, even behind a canary", async () => {
    const w = world();
    await w.reconcile();
    w.olderChart();
    w.gate.admit('apps/canary', await chartDigest(chart, { signal }));
    await w.reconcile();
    expect(w.condition('ChartRollout')?.reason).toBe('Waiting');
    w.setSpec({ replicaCount: 3 });
    await w.reconcile();
    expect(w.upgrades()).toBe(1);
    expect(w.condition('ChartRollout')).toBeUndefined();
  });
});
