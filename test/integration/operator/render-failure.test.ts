// A chart that does not render (a template `fail`), against the real control plane with helm 3 and helm 4: the
// conditions operator-sdk v1.42 writes. A first install is ReleaseFailed/InstallError (operator-sdk installs
// without a dry run); once a release is deployed it is Irreconcilable/ReconcileError (its dry-run upgrade fails),
// and the deployed release stays. Other CRs reconcile meanwhile, and the text passed to `fail` (an ordinary value, not a secret) reaches the message.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type crClient, FAILING_CHART, releaseRevisions } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const helms = Object.entries(inject('cluster').helms);
const REFUSAL = 'the chart refuses these values';

describe.each(helms)('the operator with %s, for a chart that does not render', (_, helm) => {
  const f = useOperatorFixture({
    kinds: [{ kind: 'Unrendered', chart: FAILING_CHART }],
    namespaces: ['op-render'],
    helm,
  });
  let crs: ReturnType<typeof crClient>;

  beforeAll(() => {
    crs = f.crs;
  });

  describe('on a first install', () => {
    it('reports ReleaseFailed/InstallError with helm error, while other CRs still reconcile', async () => {
      await f.create('first', { fail: REFUSAL });
      await f.create('healthy', { data: 'ok' });
      await expect.poll(async () => (await crs.condition('first', 'ReleaseFailed'))?.reason, POLL).toBe('InstallError');
      const failed = await crs.condition('first', 'ReleaseFailed');
      expect(failed?.status).toBe('True');
      expect(failed?.message).toContain('execution error at (failing/templates/configmap.yaml');
      expect(failed?.message).toContain(REFUSAL);
      expect(await crs.condition('first', 'Irreconcilable')).toBeUndefined();
      expect(await crs.condition('first', 'Deployed')).toBeUndefined();
      await expect.poll(async () => (await crs.condition('healthy', 'Deployed'))?.status, POLL).toBe('True');
      expect(await releaseRevisions(f.kube, f.ns, 'first')).toEqual([]);
    });
  });

  describe('once a release is deployed', () => {
    it('reports Irreconcilable/ReconcileError and keeps the deployed release', async () => {
      await f.create('later', { data: 'v1' });
      await expect.poll(async () => (await crs.condition('later', 'Deployed'))?.status, POLL).toBe('True');

      await crs.setSpec('later', { data: 'v2', fail: REFUSAL });

      await expect
        .poll(async () => (await crs.condition('later', 'Irreconcilable'))?.reason, POLL)
        .toBe('ReconcileError');
      const irreconcilable = await crs.condition('later', 'Irreconcilable');
      expect(irreconcilable?.message).toContain('execution error at (failing/templates/configmap.yaml');
      expect(irreconcilable?.message).toContain(REFUSAL);
      expect(await crs.condition('later', 'ReleaseFailed')).toBeUndefined();
      expect((await crs.condition('later', 'Deployed'))?.status).toBe('True');
      expect(await releaseRevisions(f.kube, f.ns, 'later')).toEqual(['1:deployed']);
    });
  });
});
