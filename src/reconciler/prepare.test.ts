import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, NGINX_CHART, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import type { InstallParams } from '../helm/types.js';
import { FINGERPRINT_LABEL } from '../records/release-state.js';
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
  return {
    reconciler,
    helm,
    removeChart: () => rmSync(dir, { recursive: true, force: true }),
    /** Adds a file to the chart, which changes its digest once the chart is read again. */
    editChart: () => writeFileSync(join(chart, 'templates', 'extra.txt'), 'edited\n'),
    /** The fingerprint label of the release helm installed. */
    fingerprint: () => {
      const install = helm.calls.find((c) => c.command === 'install')?.params as InstallParams | undefined;
      return install?.labels?.[FINGERPRINT_LABEL];
    },
  };
}

describe('HelmReconciler.prepare, run by the start-up warm-up', () => {
  const signal = new AbortController().signal;

  it('reads the chart digest before the first reconcile, which then reads no chart file', async () => {
    const prepared = withChartCopy();
    await prepared.reconciler.prepare(signal);
    prepared.editChart(); // the first reconcile would see the edit if it read the chart again
    await prepared.reconciler.reconcile('default/web', signal);
    const fresh = withChartCopy(); // the chart as it was
    await fresh.reconciler.reconcile('default/web', signal);
    expect(prepared.fingerprint()).toBeDefined();
    expect(prepared.fingerprint()).toBe(fresh.fingerprint());
    prepared.removeChart();
    fresh.removeChart();
  });

  it('without it, the first reconcile reads the chart itself (CHART_UNREADABLE when it is gone)', async () => {
    const w = withChartCopy();
    w.removeChart();
    await expect(w.reconciler.reconcile('default/web', signal)).rejects.toMatchObject({ code: 'CHART_UNREADABLE' });
    expect(w.helm.calls.map((c) => c.command)).not.toContain('install');
  });
});
