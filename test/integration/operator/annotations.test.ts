// The helm.sdk.operatorframework.io/* annotations reach the real helm as the right flags: the disable-hooks trio
// (proven by hooks that would otherwise wait forever), upgrade-force, and rollback-force "false"; and an
// Irreconcilable CR recovers once its spec renders again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import {
  crClient,
  createTestCrd,
  FAILING_CHART,
  type OperatorProcess,
  runCleanups,
  startOperator,
  watchesYaml,
} from '../../support/operator.js';

const A = 'helm.sdk.operatorframework.io/';

describe('annotations', () => {
  let kube: TestKube;
  let ns: string;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;
  const names = new Set<string>();
  const cleanups: (() => Promise<unknown>)[] = [];
  const poll = { timeout: 60_000, interval: 250 };
  const create = async (name: string, spec: unknown, annotations: Record<string, string>) => {
    names.add(name);
    await crs.create(name, spec, { annotations });
  };
  const deployed = async (name: string) => (await crs.condition(name, 'Deployed'))?.status;
  const hookJobs = async () =>
    (await kube.batch.listNamespacedJob({ namespace: ns, labelSelector: 'test.helm-operator/hook=true' })).items.length;
  /** The helm calls made from now on (the startup `version` check aside). */
  const callsSince = () => {
    const mark = op.helmCalls().length;
    return () =>
      op
        .helmCalls()
        .slice(mark)
        .filter((c) => c !== 'version');
  };

  beforeAll(async () => {
    kube = testKube();
    const [kind, deleteCrd] = await createTestCrd(kube, 'Annotated');
    const [n, deleteNs] = await createTestNamespace(kube, 'op-annot');
    ns = n;
    crs = crClient(kube, kind, ns);
    cleanups.push(deleteCrd, deleteNs);
    op = startOperator({ watches: watchesYaml([{ ...kind, chart: FAILING_CHART }]), env: { WATCH_NAMESPACE: ns } });
    cleanups.push(async () => {
      for (const name of names) await crs.delete(name);
      for (const name of names) {
        await vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), poll);
      }
      await op.stop();
    });
  });

  afterAll(async () => {
    await runCleanups(cleanups);
  });

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
    await crs.setSpec('forced', { data: 'v2', hook: 'pre-upgrade' });
    await expect
      .poll(
        async () => (await kube.core.readNamespacedConfigMap({ name: 'forced-data', namespace: ns })).data?.data,
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
    await crs.setSpec('gentle', { data: 'v2', invalidObject: true });
    await expect.poll(async () => (await crs.condition('gentle', 'ReleaseFailed'))?.reason, poll).toBe('UpgradeError');
    await expect.poll(() => calls().slice(0, 2), poll).toEqual(['upgrade', 'rollback']);
  });

  it('uninstall-disable-hooks uninstalls without running a pre-delete hook', async () => {
    await create('no-delete-hooks', { hook: 'pre-delete' }, { [`${A}uninstall-disable-hooks`]: 'true' });
    await expect.poll(() => deployed('no-delete-hooks'), poll).toBe('True');
    const calls = callsSince();
    await crs.delete('no-delete-hooks');
    await expect.poll(() => isGone(() => crs.get('no-delete-hooks')), poll).toBe(true);
    expect(calls()).toEqual(['uninstall no-hooks']);
    expect(await hookJobs()).toBe(0);
  });

  it('an Irreconcilable CR is Deployed, and the condition gone, once its spec renders', async () => {
    await create('recovers', { fail: 'not yet' }, {});
    await expect.poll(async () => (await crs.condition('recovers', 'Irreconcilable'))?.status, poll).toBe('True');
    await crs.setSpec('recovers', { data: 'fine' });
    await expect.poll(() => deployed('recovers'), poll).toBe('True');
    const cr = await crs.get('recovers');
    expect(cr.status?.conditions?.map((c) => c.type)).toEqual(['Initialized', 'Deployed']);
    expect(cr.status?.observedGeneration).toBe(cr.metadata.generation);
  });
});
