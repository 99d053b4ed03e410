// The reconciler's requeues with a jitter source: the periodic requeue is spread ±10 % (100 CRs reconciled together
// come due over 12 s instead of at one instant); the uninstall-wait poll and a failure's retry delay stay exact.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { FakeHelm, HELM_V3, ReleaseHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { RetryLaterError } from '../core/errors.js';
import { HelmCommandError } from '../helm/errors.js';
import { HelmReconciler } from './reconciler.js';
import type { CrAccess } from './types.js';

const MANIFEST = '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n';

/** One CR "apps/<name>" (with uninstall-wait) per name, helm faked; `draws` feeds the jitter in order. */
function world(names: readonly string[], draws: number[]) {
  const annotations = { 'helm.sdk.operatorframework.io/uninstall-wait': 'true' };
  const crs = new Map(names.map((name) => [name, new CrStore(nginxCr({}, { name, annotations }))]));
  const store = (name: string): CrStore => {
    const s = crs.get(name);
    if (!s) throw new Error(`no CR ${name}`);
    return s;
  };
  const access: CrAccess = {
    get: async (_ns, name) => crs.get(name)?.cr,
    setFinalizers: (o, finalizers, opts) => store(o.metadata.name).access.setFinalizers(o, finalizers, opts),
    writeStatus: (o, status, opts) => store(o.metadata.name).access.writeStatus(o, status, opts),
  };
  const histories = new Map(names.map((n) => [n, new ReleaseHistory({ notes: '', manifestOf: () => MANIFEST })]));
  const history = (name: string): ReleaseHistory => {
    const h = histories.get(name);
    if (!h) throw new Error(`no CR ${name}`);
    return h;
  };
  const helm = new FakeHelm()
    .on('version', () => HELM_V3)
    .on('install', (p) => history(p.release).record(p))
    .on('uninstall', (p) => history(p.release).clear());
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      periodJitter: () => draws.shift() ?? 0.5,
      crs: access,
      releases: { history: async (_ns, name) => history(name).list() },
      helm,
      cleanup: async () => ({ remaining: ['still there'] }),
      clock: new FakeClock(),
    }),
  );
  const signal = new AbortController().signal;
  return {
    helm,
    reconcile: (name: string) => reconciler.reconcile(`apps/${name}`, signal),
    markDeleted: (name: string) => crs.get(name)?.markDeleted(),
  };
}

describe('HelmReconciler periodic requeue with a jitter source', () => {
  it('spreads the reconcile period ±10 % on every pass, install and idle alike', async () => {
    const w = world(['web'], [0, 1 - 1e-9, 0.25]);
    expect(await w.reconcile('web')).toEqual({ requeueAfterMs: 54_000 }); // the install
    expect(await w.reconcile('web')).toEqual({ requeueAfterMs: 66_000 }); // idle
    expect(await w.reconcile('web')).toEqual({ requeueAfterMs: 57_000 });
  });

  it('takes 100 CRs reconciled at the same instant out of lockstep: their next passes spread over 54–66 s', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `web-${i}`);
    const w = world(
      names,
      names.map((_, i) => i / 100),
    );
    const due = new Set<number>();
    for (const name of names) due.add((await w.reconcile(name)).requeueAfterMs ?? 0);
    expect(due.size).toBe(100);
    expect(Math.min(...due)).toBe(54_000);
    expect(Math.max(...due)).toBe(65_880);
  });

  it('keeps the uninstall-wait poll exact', async () => {
    const w = world(['web'], []);
    await w.reconcile('web');
    w.markDeleted('web');
    expect(await w.reconcile('web')).toEqual({ requeueAfterMs: 5_000 });
    expect(await w.reconcile('web')).toEqual({ requeueAfterMs: 5_000 });
  });

  it("keeps a failure's retry delay exact", async () => {
    const w = world(['web'], [0]);
    w.helm.failNext(
      'install',
      new HelmCommandError({
        command: 'install',
        release: 'web',
        namespace: 'apps',
        args: ['install'],
        exitCode: 1,
        signal: undefined,
        stderr: 'Error: INSTALLATION FAILED: boom',
        canceled: false,
        timedOut: false,
        forceKilled: false,
      }),
    );
    const err = await w.reconcile('web').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err).toMatchObject({ retryAfterMs: 10_000 });
  });
});
