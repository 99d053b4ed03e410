// The helm.sdk.operatorframework.io/* annotations reach the real helm as the right flags: the disable-hooks trio
// (proven by hooks that would otherwise wait forever), upgrade-force, and rollback-force "false"; and an
// Irreconcilable CR recovers once its spec renders again.
import { describe, expect, it } from 'vitest';
import { isGone } from '../../support/kube.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const A = 'helm.sdk.operatorframework.io/';

describe('annotations', () => {
  const f = useOperatorFixture('Annotated', 'op-annot');
  const poll = POLL;
  const create = (name: string, spec: unknown, annotations: Record<string, string>) =>
    f.create(name, spec, annotations);
  const deployed = async (name: string) => (await f.crs.condition(name, 'Deployed'))?.status;
  const hookJobs = async () =>
    (await f.kube.batch.listNamespacedJob({ namespace: f.ns, labelSelector: 'test.helm-operator/hook=true' })).items
      .length;
  /** The helm calls made from now on (the startup `version` check aside). */
  const callsSince = () => {
    const mark = f.op.helmCalls().length;
    return () =>
      f.op
        .helmCalls()
        .slice(mark)
        .filter((c) => c !== 'version');
  };

  it('install-disable-hooks installs without running a pre-install hook', async () => {
    const calls = callsSince();
    await create('no-install-hooks', { hook: 'pre-install' }, { [`${A}install-disable-hooks`]: 'true' });
    await expect.poll(() => deployed('no-install-hooks'), poll).toBe('True');
    expect(calls()).toEqual(['install no-hooks']);
    expect(await hookJobs()).toBe(0);
  });

  it('upgrade-disable-hooks and upgrade-force reach helm upgrade as --no-hooks and --force', async () => {
    await create('forced', { data: 'v1' }, { [`${A}upgrade-disable-hooks`]: 'T', [`${A}upgrade-force`]: '1' });
    await expect.poll(() => deployed('forced'), poll).toBe('True');
    const calls = callsSince();
    await f.crs.setSpec('forced', { data: 'v2', hook: 'pre-upgrade' });
    await expect
      .poll(
        async () => (await f.kube.core.readNamespacedConfigMap({ name: 'forced-data', namespace: f.ns })).data?.data,
        poll,
      )
      .toBe('v2');
    expect(calls()).toEqual(['upgrade force no-hooks']);
    expect(await hookJobs()).toBe(0);
  });

  it('rollback-force "false" rolls a failed upgrade back without --force', async () => {
    await create('gentle', { data: 'v1' }, { [`${A}rollback-force`]: 'false' });
    await expect.poll(() => deployed('gentle'), poll).toBe('True');
    const calls = callsSince();
    await f.crs.setSpec('gentle', { data: 'v2', invalidObject: true });
    await expect
      .poll(async () => (await f.crs.condition('gentle', 'ReleaseFailed'))?.reason, poll)
      .toBe('UpgradeError');
    await expect.poll(() => calls().slice(0, 2), poll).toEqual(['upgrade', 'rollback']);
  });

  it('uninstall-disable-hooks uninstalls without running a pre-delete hook', async () => {
    await create('no-delete-hooks', { hook: 'pre-delete' }, { [`${A}uninstall-disable-hooks`]: 'true' });
    await expect.poll(() => deployed('no-delete-hooks'), poll).toBe('True');
    const calls = callsSince();
    await f.crs.delete('no-delete-hooks');
    await expect.poll(() => isGone(() => f.crs.get('no-delete-hooks')), poll).toBe(true);
    // With its delete hooks off, nothing is left for helm to run: uninstalled in-process, as `--no-hooks` would.
    expect(calls()).toEqual([]);
    expect(await hookJobs()).toBe(0);
  });

  it('an Irreconcilable CR is Deployed, and the condition gone, once its spec renders', async () => {
    // Irreconcilable needs a deployed release (a first install that does not render is ReleaseFailed, as operator-sdk).
    await create('recovers', { data: 'first' }, {});
    await expect.poll(() => deployed('recovers'), poll).toBe('True');
    await f.crs.setSpec('recovers', { fail: 'not yet' });
    await expect.poll(async () => (await f.crs.condition('recovers', 'Irreconcilable'))?.status, poll).toBe('True');
    await f.crs.setSpec('recovers', { data: 'fine' });
    await expect.poll(async () => (await f.crs.condition('recovers', 'Irreconcilable'))?.status, poll).toBeUndefined();
    expect(await deployed('recovers')).toBe('True');
    const cr = await f.crs.get('recovers');
    // operator-sdk's two, and our Ready (written with Deployed); Irreconcilable is gone.
    expect(cr.status?.conditions?.map((c) => c.type)).toEqual(['Initialized', 'Deployed', 'Ready']);
    expect(cr.status?.observedGeneration).toBe(cr.metadata.generation);
  });
});
