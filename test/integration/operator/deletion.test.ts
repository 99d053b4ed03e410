// Deletion against the real control plane and helm, with the failing chart (`holdDeletion` renders a ConfigMap that
// a foreign finalizer keeps Terminating): uninstall-wait holds the CR until the release's objects are gone, without
// it the CR goes at once; the legacy finalizer is honoured and never joined by the new one; an invalid annotation
// is reported but never blocks deletion; and a release whose records are already gone does not block the finalizer.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { isGone, isNotFound, type TestKube } from '../../support/kube.js';
import {
  type crClient,
  FAILING_CHART,
  type OperatorProcess,
  releaseRevisions,
  type TestKind,
} from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const HOLD = 'example.com/hold';
const LEGACY_FINALIZER = 'uninstall-helm-release';
const ANNOTATION = 'helm.sdk.operatorframework.io/';

describe('deletion', () => {
  let kube: TestKube;
  let ns: string;
  let kind: TestKind;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;
  const names = new Set<string>();
  const poll = { timeout: 60_000, interval: 250 };

  const create = async (name: string, spec: unknown, metadata: Record<string, unknown> = {}) => {
    names.add(name);
    f.track(kind, ns, name);
    await crs.create(name, spec, metadata);
  };
  const deployed = async (name: string) =>
    expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, poll).toBe('True');
  const gone = async (name: string) =>
    vi.waitFor(async () => expect(await isGone(() => crs.get(name))).toBe(true), poll);
  const readConfigMap = (name: string) => kube.core.readNamespacedConfigMap({ name, namespace: ns });
  const isConflict = (err: unknown) => err instanceof Error && 'code' in err && err.code === 409;

  /** Removes the chart's foreign finalizer from a ConfigMap (read-modify-write; retried on conflict). */
  const unhold = async (name: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const cm = await readConfigMap(name);
        if (!cm.metadata?.finalizers?.includes(HOLD)) return;
        cm.metadata.finalizers = cm.metadata.finalizers.filter((f) => f !== HOLD);
        await kube.core.replaceNamespacedConfigMap({ name, namespace: ns, body: cm });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (attempt >= 5 || !isConflict(err)) throw err;
      }
    }
  };
  /** Every ConfigMap of the namespace that the chart's finalizer still holds is freed. */
  const unholdAll = async () => {
    const list = await kube.core.listNamespacedConfigMap({ namespace: ns });
    for (const cm of list.items) {
      if (cm.metadata?.finalizers?.includes(HOLD)) await unhold(cm.metadata.name ?? '');
    }
  };

  /** Removes every finalizer of a CR directly (only for cleanup when the operator did not). */
  const forceFree = async (name: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const cr = await crs.get(name);
        const body = { ...cr, metadata: { ...cr.metadata, finalizers: [] } };
        const target = { group: kind.group, version: kind.version, plural: kind.plural, namespace: ns, name };
        await kube.custom.replaceNamespacedCustomObject({ ...target, body });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (attempt >= 5 || !isConflict(err)) throw err;
      }
    }
  };

  // At the end, last first: the fixture deletes the CRs while the operator runs (an uninstall-wait CR is only freed
  // once its held objects are gone) and stops it; then held ConfigMaps are freed, and as a last resort the finalizers
  // of any CR the operator did not free are stripped, so that the CRD and the namespace can go.
  const f = useOperatorFixture({
    kinds: [{ kind: 'Deletion', chart: FAILING_CHART }],
    namespaces: ['op-del'],
    operator: () => ({ args: ['--reconcile-period=2s'] }),
    whileDeleting: () => unholdAll(),
  });
  beforeAll(() => {
    ({ kube, kind, ns, op, crs } = f);
    f.onCleanup(async () => {
      for (const name of names) {
        if (!(await isGone(() => crs.get(name)))) await forceFree(name);
      }
    });
    f.onCleanup(unholdAll);
  });

  describe('with the uninstall-wait annotation', () => {
    it('keeps the CR, reporting that it waits, until an object held by a finalizer is gone', async () => {
      const name = 'wait';
      await create(name, { holdDeletion: true }, { annotations: { [`${ANNOTATION}uninstall-wait`]: 'true' } });
      await deployed(name);
      expect((await readConfigMap(`${name}-data`)).metadata?.finalizers).toEqual([HOLD]);

      await crs.delete(name);
      await vi.waitFor(async () => {
        const cr = await crs.get(name);
        const condition = cr.status?.conditions?.find((c) => c.type === 'Deployed');
        expect(condition).toMatchObject({
          status: 'False',
          reason: 'UninstallSuccessful',
          message: 'Waiting until all resources are deleted.',
        });
        // Its manifest says which objects to wait for.
        expect(cr.status?.deployedRelease?.name).toBe(name);
        expect(cr.status?.deployedRelease?.manifest).toContain(`${name}-data`);
        expect(await releaseRevisions(kube, ns, name)).toEqual([]);
        expect((await readConfigMap(`${name}-data`)).metadata?.deletionTimestamp).toBeDefined();
      }, poll);
      // Still waiting a few reconcile periods (2 s) later: the ConfigMap is still there.
      await vi.waitFor(async () => {
        expect(await isGone(() => crs.get(name))).toBe(false);
        expect(op.output().match(/Waiting until all resources are deleted/g)?.length ?? 0).toBeGreaterThanOrEqual(3);
        // operator-sdk's e2e test greps for this line as well.
        expect(op.output()).toContain('"msg":"Uninstall wait"');
      }, poll);
      expect(await isGone(() => crs.get(name))).toBe(false);

      await unhold(`${name}-data`);
      await gone(name);
      expect(await isGone(() => readConfigMap(`${name}-data`))).toBe(true);
    });
  });

  describe('without the uninstall-wait annotation', () => {
    it('frees the CR at once, although an object of the release is still Terminating', async () => {
      const name = 'nowait';
      await create(name, { holdDeletion: true });
      await deployed(name);

      await crs.delete(name);
      await gone(name);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect((await readConfigMap(`${name}-data`)).metadata?.deletionTimestamp).toBeDefined();
      // The held ConfigMap is freed by the cleanup (unholdAll).
    });
  });

  describe('when the CR carries the legacy finalizer', () => {
    it('recognises uninstall-helm-release: adds no second finalizer, uninstalls and removes it on deletion', async () => {
      const name = 'legacy';
      await create(name, {}, { finalizers: [LEGACY_FINALIZER] });
      await deployed(name);
      expect((await crs.get(name)).metadata.finalizers).toEqual([LEGACY_FINALIZER]);
      expect(await releaseRevisions(kube, ns, name)).toEqual(['1:deployed']);

      await crs.delete(name);
      await gone(name);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect(await isGone(() => readConfigMap(`${name}-data`))).toBe(true);
    });
  });

  describe('when an annotation is invalid', () => {
    it('still deploys, reports an InvalidAnnotation Warning naming it, and does not block deletion', async () => {
      const name = 'bad-annotations';
      const annotations = { [`${ANNOTATION}reconcile-period`]: '4x', [`${ANNOTATION}upgrade-force`]: 'maybe' };
      await create(name, {}, { annotations });
      await deployed(name);
      await vi.waitFor(async () => {
        const events = await kube.core.listNamespacedEvent({
          namespace: ns,
          fieldSelector: `involvedObject.name=${name}`,
        });
        const invalid = events.items.filter((e) => e.type === 'Warning' && e.reason === 'InvalidAnnotation');
        for (const key of Object.keys(annotations)) {
          expect(invalid.some((e) => e.message?.includes(key))).toBe(true);
        }
      }, poll);

      await crs.delete(name);
      await gone(name);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
    });
  });

  describe("when the release's records are already gone", () => {
    it('does not block the finalizer: the CR is freed without running helm', async () => {
      const name = 'no-release';
      // A long period, so that no periodic reconcile reinstalls the release between its removal and the deletion.
      await create(name, {}, { annotations: { [`${ANNOTATION}reconcile-period`]: '1h' } });
      await deployed(name);
      await kube.core.deleteCollectionNamespacedSecret({ namespace: ns, labelSelector: `owner=helm,name=${name}` });
      await expect.poll(() => releaseRevisions(kube, ns, name), poll).toEqual([]);
      const mark = op.helmCalls().length;
      const logged = op.output().length;

      await crs.delete(name);
      await gone(name);
      expect(op.helmCalls().slice(mark)).toEqual([]);
      // The operator logs one JSON object per line; the last line may reach us just after the CR is gone.
      const messages = () =>
        op
          .output()
          .slice(logged)
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { name?: string; msg?: string })
          .filter((l) => l.name === name)
          .map((l) => l.msg);
      await expect.poll(messages, { timeout: 10_000, interval: 50 }).toContain('Removing finalizer');
      expect(messages()).toContain('Release not found');
      expect(messages()).not.toContain('Uninstalled release');
    });
  });
});
