// The values-from annotation against the real control plane and helm (test/fixtures/charts/values-from renders its
// values into a ConfigMap and its NOTES): a Secret's value reaches the rendered object, a ConfigMap's values are
// merged below the spec, a change to the Secret upgrades within 10 s (one more revision), a missing reference is
// Irreconcilable with no release at all until it is created; and no Secret value shows in events, conditions,
// the status or the operator's logs. A spec key that shadows a referenced one wins (Flux's precedence) and the CR says
// so: ValuesShadowed naming the keys, and one Warning event per change, not per reconcile.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crClient, ROOT, releaseRevisions } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { controllerOf, logMark, reconciledAfter } from '../../support/reconciles.js';

const CHART = join(ROOT, 'test/fixtures/charts/values-from');
const ANNOTATION = 'helm.sdk.operatorframework.io/values-from';
const suffix = Math.random().toString(36).slice(2, 10);
/** Values unique to this run: finding one anywhere but in the rendered objects can only mean it leaked. */
const PASSWORD = `pw-${suffix}-first`;
const ROTATED = `pw-${suffix}-rotated`;
const LATE = `pw-${suffix}-late`;
const SECRETS = [PASSWORD, ROTATED, LATE];

describe('values-from', () => {
  const f = useOperatorFixture({
    kinds: [{ kind: 'ValuesFrom', chart: CHART }],
    namespaces: ['op-vfrom'],
    // Debug lines and /metrics: they show when the reconcile a Secret change queued is over.
    operator: () => ({ args: ['--zap-log-level=debug', '--metrics-bind-address=127.0.0.1:0'] }),
  });
  const setting = async (release: string, key: string) =>
    (await f.kube.core.readNamespacedConfigMap({ name: `${release}-settings`, namespace: f.ns })).data?.[key];
  const putSecret = async (name: string, stringData: Record<string, string>) => {
    const body = { metadata: { name, namespace: f.ns }, stringData };
    try {
      await f.kube.core.createNamespacedSecret({ namespace: f.ns, body });
    } catch {
      await f.kube.core.replaceNamespacedSecret({ name, namespace: f.ns, body });
    }
  };
  const helmCalls = () => f.op.helmCalls().filter((c) => c !== 'version');
  const deployed = (name: string) =>
    expect.poll(async () => (await f.crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');

  it("merges the references below the spec, and a Secret's value reaches the rendered object", async () => {
    await f.kube.core.createNamespacedConfigMap({
      namespace: f.ns,
      body: {
        metadata: { name: 'defaults' },
        data: { 'values.yaml': 'color: blue\nsource: configmap\ndb:\n  host: cm-host\n' },
      },
    });
    await putSecret('db', { password: PASSWORD });
    const refs = [
      { kind: 'ConfigMap', name: 'defaults' },
      { kind: 'Secret', name: 'db', valuesKey: 'password', targetPath: 'db.password' },
    ];
    await f.create('app', { source: 'spec' }, { [ANNOTATION]: JSON.stringify(refs) });
    await deployed('app');
    expect(await setting('app', 'password')).toBe(PASSWORD);
    expect(await setting('app', 'color')).toBe('blue'); // from the ConfigMap
    expect(await setting('app', 'host')).toBe('cm-host');
    expect(await setting('app', 'source')).toBe('spec'); // the spec wins over the ConfigMap
    expect(await releaseRevisions(f.kube, f.ns, 'app')).toEqual(['1:deployed']);
    const deployedCondition = await f.crs.condition('app', 'Deployed');
    expect(deployedCondition?.message).toBe('Connect to cm-host with password <redacted>');
  });

  it('upgrades within 10 s when the referenced Secret changes (one more revision)', async () => {
    const started = Date.now();
    await putSecret('db', { password: ROTATED });
    await expect.poll(() => setting('app', 'password'), { timeout: 10_000, interval: 100 }).toBe(ROTATED);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(10_000);
    await expect.poll(() => releaseRevisions(f.kube, f.ns, 'app'), POLL).toEqual(['1:superseded', '2:deployed']);
    await expect.poll(async () => (await f.crs.get('app')).status?.deployedRelease?.revision, POLL).toBe(2);
  });

  it('runs no helm when a referenced object changes but the merged values do not', async () => {
    const before = helmCalls();
    const from = logMark(f.op);
    await putSecret('db', { password: ROTATED, unused: 'another key' });
    // The reconcile it triggers finds nothing to do: wait until the operator logged it queued and finished.
    await reconciledAfter(f.op, {
      controller: controllerOf(f.kind),
      key: `${f.ns}/app`,
      from,
      matching: (l) => l.msg === 'Values-from reference changed: reconcile',
    });
    expect(helmCalls()).toEqual(before);
    expect(await releaseRevisions(f.kube, f.ns, 'app')).toEqual(['1:superseded', '2:deployed']);
  });

  it('makes a CR with a missing reference Irreconcilable with no release, then Deployed once it exists', async () => {
    const refs = [{ kind: 'Secret', name: 'late' }];
    await f.create('waiting', {}, { [ANNOTATION]: JSON.stringify(refs) });
    await expect
      .poll(async () => (await f.crs.condition('waiting', 'Irreconcilable'))?.reason, POLL)
      .toBe('ReconcileError');
    const condition = await f.crs.condition('waiting', 'Irreconcilable');
    expect(condition?.message).toMatch(new RegExp(`Secret ${f.ns}/late not found: create it`));
    expect(await releaseRevisions(f.kube, f.ns, 'waiting')).toEqual([]);
    expect(await f.crs.condition('waiting', 'Deployed')).toBeUndefined();

    await putSecret('late', { 'values.yaml': `db:\n  password: ${LATE}\n` });
    await deployed('waiting');
    expect(await setting('waiting', 'password')).toBe(LATE);
    expect(await f.crs.condition('waiting', 'Irreconcilable')).toBeUndefined();
    expect(await releaseRevisions(f.kube, f.ns, 'waiting')).toEqual(['1:deployed']);
  });

  it('never shows a Secret value in events, conditions, the status or the logs', async () => {
    const events = await f.kube.core.listNamespacedEvent({ namespace: f.ns });
    const crs = crClient(f.kube, f.kind, f.ns);
    const shown = [
      JSON.stringify(events.items),
      JSON.stringify(await crs.get('app')),
      JSON.stringify(await crs.get('waiting')),
      f.op.output(),
    ].join('\n');
    expect(events.items.length).toBeGreaterThan(0);
    expect(helmCalls()).toEqual(['install', 'upgrade', 'install']); // app, app's new Secret, waiting
    expect(shown).toContain('<redacted>'); // the status manifest and NOTES had them
    for (const secret of SECRETS) expect(shown).not.toContain(secret);
  });

  it('says which referenced keys the spec shadows, once: the ValuesShadowed condition and one Warning event', async () => {
    const shadowed = `pw-${suffix}-shadowed`;
    await putSecret('ui', { 'values.yaml': `db:\n  password: ${shadowed}\ncolor: red\n` });
    // As a sample copied from the chart's defaults would: db.password "" hides the Secret's value.
    await f.create('shadow', { db: { password: '' }, color: 'green' }, { [ANNOTATION]: '[{kind: Secret, name: ui}]' });
    await deployed('shadow');
    expect(await setting('shadow', 'password')).toBe(''); // the spec wins
    expect(await setting('shadow', 'color')).toBe('green');
    const condition = await f.crs.condition('shadow', 'ValuesShadowed');
    expect(condition).toMatchObject({ status: 'True', reason: 'SpecOverridesValuesFrom' });
    expect(condition?.message).toContain(`color, db.password (from Secret ${f.ns}/ui key "values.yaml")`);
    const warnings = async () =>
      (
        await f.kube.core.listNamespacedEvent({ namespace: f.ns, fieldSelector: 'involvedObject.name=shadow' })
      ).items.filter((e) => e.reason === 'ValuesShadowed');
    await expect.poll(async () => (await warnings()).length, POLL).toBe(1);
    const [first] = await warnings();
    expect(first).toMatchObject({ type: 'Warning', message: condition?.message, count: 1 });

    // Another reconcile (requested, and so handled in the status) writes no second event.
    const at = new Date().toISOString();
    await f.crs.annotate('shadow', { 'helm.sdk.operatorframework.io/reconcile-requested-at': at });
    await expect
      .poll(
        async () => ((await f.crs.get('shadow')).status as { lastHandledReconcileAt?: string }).lastHandledReconcileAt,
        POLL,
      )
      .toBe(at);
    expect((await warnings()).map((e) => e.count)).toEqual([1]);

    // Without db.password in the spec, the Secret's value arrives, and the condition names only color.
    await f.crs.setSpec('shadow', { color: 'green' });
    await expect.poll(() => setting('shadow', 'password'), POLL).toBe(shadowed);
    await expect
      .poll(async () => (await f.crs.condition('shadow', 'ValuesShadowed'))?.message, POLL)
      .toContain(`color (from Secret ${f.ns}/ui key "values.yaml")`);
    await expect.poll(async () => (await warnings()).length, POLL).toBe(2);
    await f.crs.setSpec('shadow', {});
    await expect.poll(() => setting('shadow', 'color'), POLL).toBe('red');
    await expect.poll(async () => f.crs.condition('shadow', 'ValuesShadowed'), POLL).toBeUndefined();
    expect(await warnings()).toHaveLength(2);

    const events = await f.kube.core.listNamespacedEvent({ namespace: f.ns });
    const shown = [JSON.stringify(events.items), JSON.stringify(await f.crs.get('shadow')), f.op.output()].join('\n');
    expect(shown).not.toContain(shadowed);
  });
});
