// A chart whose declared dependency helm's library does not load (its archive left out by .helmignore): helm is
// handed a copy without it, for the install and for an upgrade, each with one DependencyDropped warning naming it;
// a reconcile that runs no helm says nothing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { HelmReconciler } from './reconciler.js';

const CHART = resolve(import.meta.dirname, '../../test/fixtures/charts/ignored-dependency');

describe('HelmReconciler for a chart whose dependency helm does not load', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('installs and upgrades from a copy without it, with one DependencyDropped warning each', async () => {
    const stage = mkdtempSync(join(tmpdir(), 'dependency-dropped-'));
    dirs.push(stage);
    const store = new CrStore(nginxCr({ message: 'a' }));
    const { helm, history } = helmWithHistory();
    const events: string[] = [];
    const reconciler = new HelmReconciler(
      reconcilerOptions({
        watch: { chart: CHART },
        chartStageDir: stage,
        crs: store.access,
        releases: { history: async () => history.list() },
        helm,
        events: { event: (_cr, type, reason) => events.push(`${type} ${reason}`) },
      }),
    );
    const signal = new AbortController().signal;
    const dropped = () => events.filter((e) => e === 'Warning DependencyDropped').length;

    await reconciler.reconcile('apps/web', signal);
    const [installed] = helm.callsOf('install');
    expect(installed?.chart).toMatch(new RegExp(`^${stage}/chart-[^/]+/ignored-dependency$`));
    expect(readFileSync(join(installed?.chart ?? '', 'Chart.yaml'), 'utf8')).toMatch(/dependencies:\n {2}\[\]\n$/);
    expect(dropped()).toBe(1);

    await reconciler.reconcile('apps/web', signal); // nothing changed: no helm, no warning
    expect(helm.callsOf('upgrade')).toHaveLength(0);
    expect(dropped()).toBe(1);

    const cr = store.live();
    store.cr = { ...cr, metadata: { ...cr.metadata, generation: 2 }, spec: { message: 'b' } };
    await reconciler.reconcile('apps/web', signal);
    expect(helm.callsOf('upgrade').map((u) => u.chart)).toEqual([installed?.chart]);
    expect(dropped()).toBe(2);
  });
});
