// Releases this operator did not install (operator-sdk's: a deployed record without a fingerprint label) are checked
// once by a dry-run upgrade: adopted without an upgrade when the rendering is the same (the record labelled, a
// ReleaseAdopted event, Deployed as operator-sdk shows it), upgraded when it differs, Irreconcilable when the check
// fails; checked in the background when the values are the release's, inline when they changed.
import { describe, expect, it, vi } from 'vitest';
import { helmCommandError, helmWithHistory, releaseRecord } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { AdoptionQueue } from '../adoption/queue.js';
import type { Release } from '../helm/types.js';
import { FINGERPRINT_LABEL } from '../records/release-state.js';
import { HelmReconciler } from './reconciler.js';
import type { HelmAppStatus } from './types.js';

const MANIFEST =
  '---\n# Source: nginx/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n';

/** A release operator-sdk installed for the CR: revision `version`, deployed, its values, no labels on its record. */
function world({
  config = { replicaCount: 1 } as Record<string, unknown>,
  version = 1,
  background = false,
  annotations = {} as Record<string, string>,
} = {}) {
  const store = new CrStore(nginxCr({ replicaCount: 1 }, { uid: 'uid-1', annotations }));
  const { helm, history } = helmWithHistory({ manifestOf: () => MANIFEST });
  const info = { status: 'deployed' as const, notes: 'nginx web is deployed' };
  const release = releaseRecord({ version, info, config, manifest: MANIFEST });
  history.revisions.push({ release, labels: {} });
  const labelled: unknown[][] = [];
  const events: string[] = [];
  const woken: string[] = [];
  const stop = new AbortController();
  const adoption = background ? new AdoptionQueue({ concurrency: 1, signal: stop.signal }) : undefined;
  adoption?.onWake((key) => woken.push(key));
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      crs: store.access,
      releases: { history: async () => history.list() },
      helm,
      events: { event: (_, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
      labelRecord: async (namespace, name, revision, labels) => {
        labelled.push([namespace, name, revision, labels]);
        const entry = history.revisions.find((h) => h.release.version === revision);
        if (entry) Object.assign(entry, { labels: { ...entry.labels, ...labels } });
      },
      ...(adoption ? { adoption } : {}),
    }),
  );
  const signal = new AbortController().signal;
  return {
    helm,
    history,
    labelled,
    events,
    woken,
    stop,
    reconcile: () => reconciler.reconcile('apps/web', signal).catch((err: unknown) => err),
    status: () => store.live().status as HelmAppStatus | undefined,
    condition: (type: string) => (store.live().status as HelmAppStatus).conditions.find((c) => c.type === type),
    renders: (manifest: string) =>
      helm.on('dryRunUpgrade', (p) => ({ ...release, version: version + 1, manifest, name: p.release })),
  };
}

describe('a release operator-sdk installed, found deployed without a fingerprint label', () => {
  it('is adopted when the dry run renders the same manifest: no upgrade, the record labelled, Deployed', async () => {
    const w = world();
    w.renders(MANIFEST);

    expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });

    expect(w.helm.callsOf('upgrade')).toEqual([]);
    expect(w.helm.callsOf('dryRunUpgrade')).toHaveLength(1);
    expect(w.helm.callsOf('dryRunUpgrade')[0]).toMatchObject({ release: 'web', namespace: 'apps', dryRun: 'client' });
    expect(w.helm.callsOf('dryRunUpgrade')[0]?.values).toEqual({ replicaCount: 1 });
    expect(w.labelled).toEqual([['apps', 'web', 1, { [FINGERPRINT_LABEL]: expect.any(String) }]]);
    expect(w.history.list().map((h) => h.release.version)).toEqual([1]);
    expect(w.events).toEqual([
      'Normal ReleaseAdopted: Adopted release web (revision 1) without an upgrade: its manifest is what this chart and these values render',
    ]);
    expect(w.condition('Deployed')).toMatchObject({ status: 'True', reason: 'InstallSuccessful' });
    expect(w.status()?.deployedRelease).toMatchObject({ name: 'web', revision: 1 });
  });

  it('is checked once: later reconciles find the label and run no helm at all', async () => {
    const w = world({ version: 3 });
    w.renders(MANIFEST);
    await w.reconcile();
    await w.reconcile();
    await w.reconcile();
    expect(w.helm.calls.map((c) => c.command)).toEqual(['dryRunUpgrade']);
    expect(w.condition('Deployed')).toMatchObject({ status: 'True', reason: 'UpgradeSuccessful' });
  });

  it('is upgraded, as operator-sdk would, when the dry run renders something else', async () => {
    const w = world();
    w.renders(MANIFEST.replace('replicas: 1', 'replicas: 2'));

    await w.reconcile();

    expect(w.helm.calls.map((c) => c.command)).toEqual(['dryRunUpgrade', 'upgrade']);
    expect(w.labelled).toEqual([]);
    expect(w.history.list().map((h) => `${h.release.version}:${h.release.info.status}`)).toEqual([
      '1:superseded',
      '2:deployed',
    ]);
    expect(w.condition('Deployed')).toMatchObject({ status: 'True', reason: 'UpgradeSuccessful' });
    expect(w.events.filter((e) => e.includes('ReleaseAdopted'))).toEqual([]);
  });

  it('is Irreconcilable when the check fails, as a failed dry run makes it in operator-sdk, and nothing is changed', async () => {
    const w = world();
    w.helm.failNext(
      'dryRunUpgrade',
      helmCommandError('upgrade --dry-run', 'Error: parse error at (nginx/templates/x.yaml:3)'),
    );

    const err = await w.reconcile();

    expect(err).toMatchObject({ name: 'RetryLaterError', code: 'ADOPTION_CHECK_FAILED' });
    expect(w.condition('Irreconcilable')).toMatchObject({ status: 'True', reason: 'ReconcileError' });
    expect(w.condition('Irreconcilable')?.message).toContain('cannot check release web before adopting it');
    expect(w.helm.callsOf('upgrade')).toEqual([]);
    expect(w.labelled).toEqual([]);

    w.renders(MANIFEST); // fixed: the retry checks again
    await w.reconcile();
    expect(w.labelled).toHaveLength(1);
    expect(w.condition('Irreconcilable')).toBeUndefined();
  });

  it('is upgraded without a check when a force-upgrade-at request is pending', async () => {
    const w = world({ annotations: { 'helm.sdk.operatorframework.io/force-upgrade-at': '1' } });

    await w.reconcile();

    expect(w.helm.calls.map((c) => c.command)).toEqual(['upgrade']);
  });
});

describe('with the manager’s background queue', () => {
  it('checks a release whose values are unchanged in the background, then adopts it when woken', async () => {
    const w = world({ background: true });
    let finish: () => void = () => {};
    const gate = new Promise<void>((r) => {
      finish = r;
    });
    w.helm.on('dryRunUpgrade', async () => {
      await gate;
      return { ...(w.history.list()[0]?.release as Release), version: 2 };
    });

    expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 }); // queued: the worker is free at once
    await vi.waitFor(() => expect(w.helm.callsOf('dryRunUpgrade')).toHaveLength(1));
    expect(w.labelled).toEqual([]);
    expect(w.events).toEqual([]);

    finish();
    await vi.waitFor(() => expect(w.woken).toEqual(['apps/web']));
    await w.reconcile(); // the wake
    expect(w.labelled).toHaveLength(1);
    expect(w.helm.calls.map((c) => c.command)).toEqual(['dryRunUpgrade']);
    expect(w.condition('Deployed')).toMatchObject({ status: 'True', reason: 'InstallSuccessful' });
    w.stop.abort();
  });

  it('checks in the reconcile itself when the values differ from the release’s (a real change goes first)', async () => {
    const w = world({ background: true, config: { replicaCount: 3 } });
    w.renders(MANIFEST.replace('replicas: 1', 'replicas: 3'));

    await w.reconcile();

    expect(w.woken).toEqual([]);
    expect(w.helm.calls.map((c) => c.command)).toEqual(['dryRunUpgrade', 'upgrade']);
    w.stop.abort();
  });
});
