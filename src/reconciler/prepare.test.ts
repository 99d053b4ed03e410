import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, NGINX_CHART, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { HelmReconciler } from './reconciler.js';

/** A reconciler of a copy of the sample chart, which the test can take away. */
function withChartCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'prepare-'));
  const chart = join(dir, 'nginx');
  cpSync(NGINX_CHART, chart, { recursive: true });
  const { helm, history } = helmWithHistory({ manifestOf: (v) => `manifest v${v}` });
  const store = new CrStore(nginxCr({ replicaCount: 1 }));
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      watch: { chart },
      crs: store.access,
      releases: { history: async () => history.revisions },
      helm,
    }),
  );
  return { reconciler, helm, removeChart: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('HelmReconciler.prepare, run by the start-up warm-up', () => {
  const signal = new AbortController().signal;

  it('reads the chart digest before the first reconcile, which then reads no chart file', async () => {
    const w = withChartCopy();
    await w.reconciler.prepare(signal);
    w.removeChart(); // the first reconcile would fail to read it
    await w.reconciler.reconcile('default/web', signal);
    expect(w.helm.calls.map((c) => c.command)).toContain('install');
  });

  it('without it, the first reconcile reads the chart itself', async () => {
    const w = withChartCopy();
    w.removeChart();
    await expect(w.reconciler.reconcile('default/web', signal)).rejects.toThrow();
    expect(w.helm.calls.map((c) => c.command)).not.toContain('install');
  });
});
