// The reconciler with --status-manifest: what each mode writes to status.deployedRelease, and which manifest
// uninstall-wait waits for (Helm's records first, the status only when they are gone and it holds a manifest).
import { describe, expect, it } from 'vitest';
import { FakeHelm, HELM_V3, ReleaseHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { FINALIZER } from '../finalizers/finalizers.js';
import { HelmReconciler } from './reconciler.js';
import { redactSecrets } from './status/status-manifest.js';
import type { HelmAppStatus, StatusManifestMode } from './types.js';

const MANIFEST = `---
# Source: nginx/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: web-credentials
stringData:
  password: hunter2
---
# Source: nginx/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
`;

function world(mode?: StatusManifestMode) {
  const writes: HelmAppStatus[] = [];
  const waitedFor: string[] = [];
  /** What each cleanup call reports as still there, in order; then nothing. */
  const remaining: unknown[][] = [];
  const store = new CrStore(nginxCr({}, { annotations: { 'helm.sdk.operatorframework.io/uninstall-wait': 'true' } }), {
    onStatus: (status) => writes.push(status),
  });
  // Installs record revision 1 with MANIFEST; upgrade and rollback are not scripted (the fake throws).
  const history = new ReleaseHistory({ notes: '', manifestOf: () => MANIFEST });
  const helm = new FakeHelm()
    .on('version', () => HELM_V3)
    .on('install', (p) => history.record(p))
    .on('uninstall', () => history.clear());
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      crs: store.access,
      // A copy, as the API returns: uninstall must not empty what #delete already read.
      releases: { history: async () => history.list() },
      helm,
      cleanup: async (manifest) => {
        waitedFor.push(manifest);
        return { remaining: remaining.shift() ?? [] };
      },
      ...(mode ? { statusManifest: mode } : {}),
    }),
  );
  const signal = new AbortController().signal;
  return {
    writes,
    waitedFor,
    remaining,
    get cr() {
      return store.cr;
    },
    status: () => store.cr?.status as HelmAppStatus | undefined,
    reconcile: () => reconciler.reconcile('apps/web', signal),
    markDeleted: () => store.markDeleted(),
  };
}

describe('HelmReconciler status.deployedRelease', () => {
  it('redacted by default: Secret values as digests, the rest as rendered; unchanged afterwards', async () => {
    const w = world();
    await w.reconcile();
    const dr = w.status()?.deployedRelease;
    expect(dr).toEqual({ name: 'web', revision: 1, manifest: redactSecrets(MANIFEST) });
    expect(JSON.stringify(w.status())).not.toContain('hunter2');
    expect(dr?.manifest).toContain('kind: ConfigMap');
    const writes = w.writes.length;
    await w.reconcile();
    expect(w.writes).toHaveLength(writes);
  });

  it('full: the manifest as rendered', async () => {
    const w = world('full');
    await w.reconcile();
    expect(w.status()?.deployedRelease).toEqual({ name: 'web', revision: 1, manifest: MANIFEST });
  });

  it('none: name and revision only; unchanged afterwards', async () => {
    const w = world('none');
    await w.reconcile();
    expect(w.status()?.deployedRelease).toEqual({ name: 'web', revision: 1 });
    const writes = w.writes.length;
    await w.reconcile();
    expect(w.writes).toHaveLength(writes);
  });
});

describe('HelmReconciler uninstall-wait', () => {
  it("waits for the release's own manifest from Helm's records on every pass, though the uninstall took them", async () => {
    const w = world();
    await w.reconcile();
    w.markDeleted();
    w.remaining.push(['web-config']);
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5_000 });
    expect(w.waitedFor).toEqual([MANIFEST]);
    expect(await w.reconcile()).toEqual({});
    expect(w.waitedFor).toEqual([MANIFEST, MANIFEST]);
    expect(w.cr).toBeUndefined();
  });

  it('with --status-manifest=none, still waits on later passes for the manifest the first pass saw', async () => {
    const w = world('none');
    await w.reconcile();
    w.markDeleted();
    w.remaining.push(['web-config'], ['web-config']);
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5_000 });
    expect(await w.reconcile()).toEqual({ requeueAfterMs: 5_000 });
    expect(w.waitedFor).toEqual([MANIFEST, MANIFEST]);
    expect(w.cr?.metadata.finalizers).toContain(FINALIZER);
    expect(await w.reconcile()).toEqual({});
    expect(w.cr?.metadata.finalizers ?? []).not.toContain(FINALIZER);
  });
});
