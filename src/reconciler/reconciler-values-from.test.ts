// The reconciler with values-from: a missing reference makes the CR Irreconcilable without any helm process; once it
// exists the release installs with references < spec < overrides; a changed Secret upgrades, an unchanged one runs
// no helm (the merged values are in the fingerprint); Secret values reach helm only as values and as strings to
// hide, and never the status (NOTES, manifest) or events; a malformed annotation is terminal; spec keys that shadow
// referenced ones show as ValuesShadowed, with one event per change.
import { describe, expect, it } from 'vitest';
import { helmWithHistory } from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { RetryLaterError, TerminalError } from '../core/errors.js';
import type { InstallParams, UpgradeParams } from '../helm/types.js';
import { HelmReconciler } from './reconciler.js';
import type { HelmAppStatus, ReferencedObject, ReferenceReader } from './types.js';

const ANNOTATION = 'helm.sdk.operatorframework.io/values-from';
const PASSWORD = 'pw-7f3a-unique';
const b64 = (s: string) => Buffer.from(s).toString('base64');

function world(refs: string, statusManifest: 'full' | 'redacted' = 'redacted') {
  const events: string[] = [];
  const store = new CrStore(
    nginxCr({ replicaCount: 2, db: { host: 'spec-host' } }, { annotations: { [ANNOTATION]: refs } }),
  );
  /** The namespace's ConfigMaps and Secrets, by "Kind/name". */
  const objects = new Map<string, ReferencedObject>();
  const reads: string[] = [];
  const reader: ReferenceReader = {
    async get(kind, namespace, name) {
      reads.push(`${kind}/${namespace}/${name}`);
      return objects.get(`${kind}/${name}`);
    },
  };
  const { helm, history } = helmWithHistory({
    notes: `Log in with ${PASSWORD}`,
    manifestOf: (v) => `kind: ConfigMap\ndata:\n  password: ${PASSWORD}\n  revision: "${v}"\n`,
  });
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      watch: { overrideValues: { 'db.port': '5432' } },
      events: { event: (_cr, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
      crs: store.access,
      releases: { history: async () => history.list() },
      helm,
      references: reader,
      statusManifest,
    }),
  );
  const signal = new AbortController().signal;
  return {
    events,
    reads,
    helm,
    get cr() {
      return store.live();
    },
    get status() {
      return store.live().status as HelmAppStatus;
    },
    condition: (type: string) =>
      (store.live().status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === type),
    secret(name: string, data: Record<string, string>) {
      objects.set(`Secret/${name}`, { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });
    },
    configMap(name: string, data: Record<string, string>) {
      objects.set(`ConfigMap/${name}`, { data });
    },
    releases: () => helm.calls.filter((c) => c.command === 'install' || c.command === 'upgrade'),
    reconcile: () => reconciler.reconcile('apps/web', signal),
  };
}

const REFS = JSON.stringify([
  { kind: 'ConfigMap', name: 'defaults' },
  { kind: 'Secret', name: 'db', valuesKey: 'password', targetPath: 'db.password' },
]);

describe('HelmReconciler with values-from', () => {
  it('makes the CR Irreconcilable, naming the missing reference, and runs no helm', async () => {
    const w = world(REFS);
    w.configMap('defaults', { 'values.yaml': 'db: {host: cm-host, name: app}\n' });
    const err = await w.reconcile().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err).toMatchObject({ code: 'VALUES_FROM_UNRESOLVED' });
    expect(w.helm.calls.filter((c) => c.command !== 'version')).toEqual([]);
    expect(w.condition('Irreconcilable')).toMatchObject({ status: 'True', reason: 'ReconcileError' });
    expect(w.condition('Irreconcilable')?.message).toMatch(/Secret apps\/db not found: create it/);
    expect(w.events).toEqual([
      expect.stringMatching(/^Warning ReconcileError: values-from: Secret apps\/db not found/),
    ]);
  });

  it('installs once the reference exists: references, then spec, then overrides; Secret strings to hide', async () => {
    const w = world(REFS);
    w.configMap('defaults', { 'values.yaml': 'db: {host: cm-host, name: app}\nreplicaCount: 1\n' });
    await w.reconcile().catch(() => undefined);
    w.secret('db', { password: PASSWORD });
    await w.reconcile();
    const [install] = w.releases();
    const p = install?.params as InstallParams;
    expect(p.values).toEqual({
      replicaCount: 2,
      db: { host: 'spec-host', name: 'app', password: PASSWORD, port: '5432' },
    });
    expect(p.secrets).toEqual([PASSWORD]);
    expect(w.condition('Deployed')).toMatchObject({ status: 'True', reason: 'InstallSuccessful' });
    expect(w.condition('Irreconcilable')).toBeUndefined();
  });

  it('keeps Secret values out of the status: NOTES and the manifest are redacted, in every --status-manifest mode', async () => {
    for (const mode of ['full', 'redacted'] as const) {
      const w = world(REFS, mode);
      w.configMap('defaults', { 'values.yaml': '{}' });
      w.secret('db', { password: PASSWORD });
      await w.reconcile();
      expect(w.condition('Deployed')?.message).toBe('Log in with <redacted>');
      expect(w.status.deployedRelease?.manifest).toContain('password: <redacted>');
      expect(JSON.stringify(w.cr)).not.toContain(PASSWORD);
      expect(w.events.join('\n')).not.toContain(PASSWORD);
    }
  });

  it('upgrades when a referenced Secret changes, and runs no helm while nothing changed', async () => {
    const w = world(REFS);
    w.configMap('defaults', { 'values.yaml': '{}' });
    w.secret('db', { password: PASSWORD });
    await w.reconcile();
    await w.reconcile();
    expect(w.releases().map((c) => c.command)).toEqual(['install']);
    expect(w.reads.filter((r) => r === 'Secret/apps/db')).toHaveLength(2); // read fresh on every reconcile
    w.secret('db', { password: 'rotated-password' });
    await w.reconcile();
    const upgrade = w.releases()[1];
    expect(upgrade?.command).toBe('upgrade');
    expect((upgrade?.params as UpgradeParams | undefined)?.values).toMatchObject({
      db: { password: 'rotated-password' },
    });
    expect(w.condition('Deployed')).toMatchObject({ reason: 'UpgradeSuccessful' });
  });

  it('skips an optional reference that is missing', async () => {
    const w = world(JSON.stringify([{ kind: 'Secret', name: 'extra', optional: true }]));
    await w.reconcile();
    expect((w.releases()[0]?.params as InstallParams | undefined)?.values).toEqual({
      replicaCount: 2,
      db: { host: 'spec-host', port: '5432' },
    });
  });

  it('refuses a malformed annotation as a terminal error, without reading anything or running helm', async () => {
    const w = world('- {kind: Secret}');
    const err = await w.reconcile().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminalError);
    expect(w.reads).toEqual([]);
    expect(w.releases()).toEqual([]);
    expect(w.condition('Irreconcilable')?.message).toMatch(/item 1: name must be the name of a Secret/);
  });

  it('says which referenced keys the spec shadows: the condition, and one Warning event per change', async () => {
    const w = world(JSON.stringify([{ kind: 'Secret', name: 'ui' }]));
    const shadowEvents = () => w.events.filter((e) => e.startsWith('Warning ValuesShadowed: '));
    const hidden = 'shadowed-host-5be1';
    w.secret('ui', { 'values.yaml': `db:\n  host: ${hidden}\n  user: app\n` });
    await w.reconcile();
    // The spec's db.host wins (Flux's precedence), and the CR says so, naming the key and the reference only.
    expect((w.releases()[0]?.params as InstallParams | undefined)?.values).toMatchObject({ db: { host: 'spec-host' } });
    const shadowed = w.condition('ValuesShadowed');
    expect(shadowed).toMatchObject({ status: 'True', reason: 'SpecOverridesValuesFrom' });
    expect(shadowed?.message).toContain('db.host (from Secret apps/ui key "values.yaml")');
    expect(shadowEvents()).toEqual([`Warning ValuesShadowed: ${shadowed?.message}`]);
    expect(w.condition('Deployed')?.status).toBe('True');
    expect(JSON.stringify(w.cr)).not.toContain(hidden);
    expect(w.events.join('\n')).not.toContain(hidden);

    await w.reconcile();
    await w.reconcile();
    expect(shadowEvents()).toHaveLength(1); // not one per reconcile

    w.secret('ui', { 'values.yaml': `db:\n  host: ${hidden}\nreplicaCount: 9\n` });
    await w.reconcile();
    expect(w.condition('ValuesShadowed')?.message).toContain('db.host, replicaCount (from Secret apps/ui');
    expect(shadowEvents()).toHaveLength(2);

    w.secret('ui', { 'values.yaml': 'db:\n  user: app\n' });
    await w.reconcile();
    expect(w.condition('ValuesShadowed')).toBeUndefined();
    expect(shadowEvents()).toHaveLength(2);
  });

  it('keeps ValuesShadowed on a failed helm step too', async () => {
    const w = world(JSON.stringify([{ kind: 'Secret', name: 'ui' }]));
    w.secret('ui', { 'values.yaml': 'replicaCount: 1\n' });
    w.helm.failNext('install', new Error('boom'));
    await w.reconcile().catch(() => undefined);
    expect(w.condition('ReleaseFailed')?.reason).toBe('InstallError');
    expect(w.condition('ValuesShadowed')?.message).toContain('replicaCount (from Secret apps/ui');
  });
});
