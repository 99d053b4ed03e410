// The uninstall queue on the real plane, with helm 3 and helm 4: 20 CRs deleted while no operator runs (their
// finalizers hold them) are coalesced by the next operator's queue (in-process lanes, then one `helm uninstall`
// process per job with --in-process-uninstall=false), and each CR's finalizer is removed by a reconcile of that CR's
// own key: its "Removing finalizer" line carries a reconcileID whose "Reconciled" line names the same key.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { isGone, type TestKube } from '../../support/kube.js';
import { type crClient, type OperatorProcess, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const POLL = { timeout: 120_000, interval: 250 } as const;
const COUNT = 20;
const ARGS = ['--reconcile-period=0', '--max-concurrent-reconciles=2', '--zap-log-level=debug'];

interface Line {
  readonly msg?: string;
  readonly reconcileID?: string;
  readonly key?: string;
  readonly name?: string;
  readonly release?: string;
  readonly batch?: number;
  readonly batchOf?: string;
}

const lines = (op: OperatorProcess): Line[] =>
  op
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

describe.each(Object.entries(inject('cluster').helms))('the uninstall queue with %s', (_, helm) => {
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const f = useOperatorFixture({ namespaces: ['op-uq'], helm, operator: () => ({ args: ARGS }) });
  beforeAll(() => {
    ({ kube, ns, crs } = f);
  });

  const reasons = async (name: string) =>
    (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items
      .map((e) => e.reason ?? '')
      .filter((r) => r.startsWith('Uninstall'));

  /** Creates `names`, waits until each is Deployed, stops the operator, deletes them all, starts one with `args`. */
  async function deleteTogether(names: readonly string[], args: readonly string[]): Promise<OperatorProcess> {
    for (const name of names) await f.create(name, { replicaCount: 1 });
    for (const name of names)
      await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    await f.op.kill();
    for (const name of names) await crs.delete(name); // held by the finalizer: no operator runs
    const op = f.start({ args: [...args] });
    for (const name of names) await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
    return op;
  }

  /** Each CR's finalizer was removed once, by a reconcile of its own key, and no job finished another CR. */
  function expectOwnRemovals(op: OperatorProcess, names: readonly string[]): void {
    const all = lines(op);
    const keyOf = new Map(
      all.filter((l) => l.msg === 'Reconciled' && l.reconcileID).map((l) => [l.reconcileID, l.key]),
    );
    const removals = all.filter((l) => l.msg === 'Removing finalizer');
    expect(removals.map((l) => l.release).sort()).toEqual([...names].sort());
    for (const l of removals) {
      expect({ release: l.release, by: keyOf.get(l.reconcileID) }).toEqual({
        release: l.release,
        by: `${ns}/${l.release}`,
      });
      expect(l.name).toBe(l.release);
      expect(l.batchOf).toBeUndefined();
    }
    // The first pass's job took the others: coalesced, not one release per pass.
    const together = all.filter((l) => l.msg === 'Uninstalled together').map((l) => l.batch ?? 0);
    expect(Math.max(0, ...together)).toBeGreaterThan(1);
  }

  it(`coalesces ${COUNT} deletes into in-process lanes; each CR's own reconcile removes its finalizer`, async () => {
    const names = Array.from({ length: COUNT }, (_, i) => `inproc-${String(i).padStart(2, '0')}`);
    const op = await deleteTogether(names, ARGS);
    expectOwnRemovals(op, names);
    expect(op.helmCalls().filter((c) => c.startsWith('uninstall'))).toEqual([]);
    for (const name of names) {
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect(await reasons(name)).toEqual(['UninstallSucceeded']);
    }
  });

  it(`coalesces ${COUNT} deletes into helm uninstall processes; each CR's own reconcile removes its finalizer`, async () => {
    const names = Array.from({ length: COUNT }, (_, i) => `viahelm-${String(i).padStart(2, '0')}`);
    const op = await deleteTogether(names, [...ARGS, '--in-process-uninstall=false']);
    expectOwnRemovals(op, names);
    // One line per helm process; one of several releases lists them ("uninstall a b c"), one of one release does not.
    const uninstalls = op.helmCalls().filter((c) => c.startsWith('uninstall'));
    const named = uninstalls.flatMap((c) => c.split(' ').slice(1));
    expect(uninstalls.length).toBeLessThan(COUNT);
    expect(new Set(named).size).toBe(named.length); // no release in two processes
    expect(named.length + uninstalls.filter((c) => c === 'uninstall').length).toBe(COUNT);
    for (const name of names) {
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      expect(await reasons(name)).toEqual(['UninstallSucceeded']);
    }
  });
});
