// Changing the shard count as a rolling restart, between real operator processes on one control plane: 3 → 4 (a
// replica added, then each restarted with the new count, highest ordinal first, as a StatefulSet rolls) and 3 → 2 (the
// last replica gone, the others restarted), with spec changes and new CRs throughout. Nothing is reconciled by two
// replicas at once, no CR is left without a shard, every CR's newest spec is deployed, and growing moves each CR the
// operator labelled to its uid hash modulo the new count, once. Also: an unlabelled CR
// created while every replica runs is labelled and Deployed within 2 s (the label and the finalizer in one write), and
// a label set by hand is kept.
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FINALIZER } from '../../../src/finalizers/finalizers.js';
import { shardOf } from '../../../src/leader/shard-hash.js';
import { SHARD_LABEL } from '../../../src/leader/shard-label.js';
import { type TestKube, uniqueName } from '../../support/kube.js';
import { type Cr, type crClient, type OperatorProcess, ROOT, type TestKind } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';
import { churn, deployed, logLines, overlaps, reconcileIntervals } from '../../support/shard-roll.js';

const CRS = 36;
const POLL = { timeout: 60_000, interval: 250 } as const;
const DEPLOY_ALL = { timeout: 120_000, interval: 500 } as const;

/** One shard-count world: a CRD, a namespace, the replicas started in it (all of them, stopped ones too). */
function world(prefix: string) {
  const f = useOperatorFixture({
    kinds: [{ kind: 'Counted', chart: `${ROOT}/test/fixtures/charts/sharded` }],
    namespaces: [prefix],
    start: false,
  });
  const leaseId = uniqueName('count');
  const w = {
    f,
    kube: undefined as unknown as TestKube,
    kind: undefined as unknown as TestKind,
    ns: '',
    crs: undefined as unknown as ReturnType<typeof crClient>,
    /** Every process started, in order; `byIndex` the running one of each ordinal. */
    all: [] as OperatorProcess[],
    byIndex: new Map<number, OperatorProcess>(),
    start(index: number, count: number): OperatorProcess {
      const op = f.start({
        args: [
          `--shard-count=${count}`,
          `--leader-election-id=${leaseId}`,
          `--leader-election-namespace=${w.ns}`,
          '--leader-elect-lease-duration=6s',
          '--leader-elect-renew-deadline=4s',
          '--leader-elect-retry-period=1s',
          '--reconcile-period=0',
          '--max-concurrent-reconciles=2',
          '--zap-log-level=debug',
          '--metrics-bind-address=0',
        ],
        env: { POD_NAME: `counted-operator-${index}` },
      });
      w.all.push(op);
      w.byIndex.set(index, op);
      return op;
    },
    /** Whether `op` holds `shard` now (its last Acquired/Releasing line for it). */
    holds(op: OperatorProcess, shard: number): boolean {
      const events = logLines(op).filter(
        (l) =>
          l.shard === shard &&
          ['Acquired shard', 'Releasing shard', 'Lost shard', 'Handing shard back to its owner'].includes(l.msg ?? ''),
      );
      return events.at(-1)?.msg === 'Acquired shard';
    },
    async list(): Promise<Cr[]> {
      const { group, version, plural } = w.kind;
      return (
        (await w.kube.custom.listNamespacedCustomObject({ group, version, namespace: w.ns, plural })) as { items: Cr[] }
      ).items;
    },
  };
  beforeAll(() => {
    Object.assign(w, { kube: f.kube, kind: f.kind, ns: f.ns, crs: f.crs });
    // The CRs are not uninstalled one by one at the end: once the operators stopped, their finalizers go and the
    // namespace takes them and their releases with it.
    f.onCleanup(async () => {
      const { group, version, plural } = w.kind;
      for (const cr of await w.list()) {
        await w.kube.custom.replaceNamespacedCustomObject({
          group,
          version,
          namespace: w.ns,
          plural,
          name: cr.metadata.name,
          body: { ...cr, metadata: { ...cr.metadata, finalizers: [] } },
        });
      }
    });
  });
  return w;
}

type World = ReturnType<typeof world>;

/** Starts replicas 0 … count − 1 with `count` shards, each holding its own, then creates `CRS` unlabelled CRs. */
async function startAndFill(w: World, count: number): Promise<string[]> {
  for (let i = 0; i < count; i++) w.start(i, count);
  await vi.waitFor(() => {
    for (const [i, op] of w.byIndex) expect(w.holds(op, i), `replica ${i}`).toBe(true);
  }, POLL);
  const names = Array.from({ length: CRS }, (_, i) => `cr-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < names.length; i += 12)
    await Promise.all(names.slice(i, i + 12).map((n) => w.crs.create(n, { round: 1 })));
  await expect.poll(async () => (await w.list()).filter((cr) => deployed(cr, 1)).length, DEPLOY_ALL).toBe(CRS);
  for (const cr of await w.list())
    expect(cr.metadata.labels?.[SHARD_LABEL]).toBe(String(shardOf(cr.metadata.uid ?? '', count)));
  return names;
}

/** Restarts replica `index` with `count` shards (SIGTERM, then a new process) and waits until it holds its shard. */
async function roll(w: World, index: number, count: number): Promise<void> {
  const old = w.byIndex.get(index);
  expect(await old?.stop()).toBe(0);
  const op = w.start(index, count);
  await vi.waitFor(() => expect(w.holds(op, index)).toBe(true), POLL);
}

/** Every CR's newest spec deployed, every CR with a shard of `count`, and no key reconciled twice at once. */
async function settled(w: World, rounds: ReadonlyMap<string, number>, count: number): Promise<Cr[]> {
  await expect
    .poll(async () => {
      const crs = await w.list();
      return crs.filter((cr) => !deployed(cr, rounds.get(cr.metadata.name) ?? 1)).map((cr) => cr.metadata.name);
    }, DEPLOY_ALL)
    .toEqual([]);
  const crs = await w.list();
  const shards = new Set(Array.from({ length: count }, (_, i) => String(i)));
  expect(
    crs.filter((cr) => !shards.has(cr.metadata.labels?.[SHARD_LABEL] ?? '')).map((cr) => cr.metadata.name),
  ).toEqual([]);
  const intervals = reconcileIntervals(w.all);
  // The logs were read: every CR has at least one reconcile on record.
  expect(crs.filter((cr) => !intervals.has(`${w.ns}/${cr.metadata.name}`)).map((cr) => cr.metadata.name)).toEqual([]);
  expect(overlaps(intervals)).toEqual([]);
  return crs;
}

/** Each CR's watch events in order: whether it had the shard label and our finalizer then. */
async function watchWrites(w: ReturnType<typeof world>) {
  const kc = new KubeConfig();
  kc.loadFromFile(w.kube.kubeconfig);
  const seen = new Map<string, { type: string; label: boolean; finalizer: boolean }[]>();
  const { group, version, plural } = w.kind;
  const list = (await w.kube.custom.listNamespacedCustomObject({ group, version, namespace: w.ns, plural })) as {
    metadata: { resourceVersion: string };
  };
  const abort = await new Watch(kc).watch(
    `/apis/${group}/${version}/namespaces/${w.ns}/${plural}`,
    { resourceVersion: list.metadata.resourceVersion },
    (type: string, cr: Cr) => {
      const events = seen.get(cr.metadata.name) ?? [];
      seen.set(cr.metadata.name, events);
      const label = cr.metadata.labels?.[SHARD_LABEL] !== undefined;
      events.push({ type, label, finalizer: (cr.metadata.finalizers ?? []).includes(FINALIZER) });
    },
    () => undefined,
  );
  return { of: (name: string) => seen.get(name) ?? [], stop: () => abort.abort() };
}

describe('shard count 3 → 4, as a rolling restart', () => {
  const w = world('op-grow');

  it('labels and deploys an unlabelled CR created while every replica runs within 2 s, with one write for the label and the finalizer', async () => {
    await startAndFill(w, 3);
    const writes = await watchWrites(w);
    const took: string[] = [];
    for (const name of ['fresh-a', 'fresh-b', 'fresh-c']) {
      const at = performance.now();
      await w.crs.create(name, { round: 1 });
      let labelledMs = -1;
      await expect
        .poll(
          async () => {
            const cr = await w.crs.get(name);
            if (labelledMs < 0 && cr.metadata.labels?.[SHARD_LABEL] !== undefined) labelledMs = performance.now() - at;
            return deployed(cr, 1);
          },
          { timeout: 10_000, interval: 20 },
        )
        .toBe(true);
      const deployedMs = performance.now() - at;
      took.push(`${name} labelled ${Math.round(labelledMs)} ms, Deployed ${Math.round(deployedMs)} ms`);
      expect(labelledMs).toBeGreaterThan(0);
      expect(deployedMs).toBeLessThan(2_000);
    }
    process.stdout.write(`shard-count: unlabelled CR → ${took.join('; ')}\n`);
    writes.stop();
    // The labeller wrote the shard and our finalizer at once: the first change after the create carries both, and no
    // later change adds the finalizer (a reconcile that added it would be a second write of the CR).
    for (const name of ['fresh-a', 'fresh-b', 'fresh-c']) {
      const seen = writes.of(name);
      expect(seen[0]).toEqual({ type: 'ADDED', label: false, finalizer: false });
      expect(seen[1]).toEqual({ type: 'MODIFIED', label: true, finalizer: true });
    }

    // A label set by hand is kept, whatever the uid hashes to, and decides who reconciles the CR.
    const byHand = await Promise.all(
      [0, 1, 2].map((shard) =>
        w.crs.create(`by-hand-${shard}`, { round: 1 }, { labels: { [SHARD_LABEL]: String(shard) } }),
      ),
    );
    await expect
      .poll(
        async () => (await w.list()).filter((cr) => cr.metadata.name.startsWith('by-hand-') && deployed(cr, 1)).length,
        POLL,
      )
      .toBe(3);
    for (const [shard, cr] of byHand.entries()) {
      expect((await w.crs.get(cr.metadata.name)).metadata.labels?.[SHARD_LABEL]).toBe(String(shard));
      const installedBy = w.all.filter((op) =>
        logLines(op).some((l) => l.msg === 'Installed release' && l.name === cr.metadata.name),
      );
      expect(installedBy).toEqual([w.byIndex.get(shard)]);
    }
  }, 180_000);

  it('keeps every CR in one shard, reconciled by one replica at a time, while the count goes to 4', async () => {
    const before = new Map((await w.list()).map((cr) => [cr.metadata.name, cr.metadata.labels?.[SHARD_LABEL]]));
    const names = [...before.keys()];
    const load = churn(w.crs, names);
    const started = performance.now();
    // A StatefulSet scaled up with a new template: the new ordinal starts with the new count at once, then the
    // others are restarted from the highest ordinal down.
    const added = w.start(3, 4);
    await vi.waitFor(() => expect(w.holds(added, 3)).toBe(true), POLL);
    for (const i of [2, 1, 0]) await roll(w, i, 4);
    await load.stop();
    // Growing moves each CR the operator labelled to its uid hash modulo 4, once; a label set by hand stays.
    const misplaced = async () =>
      (await w.list())
        .filter((cr) => !cr.metadata.name.startsWith('by-hand-'))
        .filter((cr) => cr.metadata.labels?.[SHARD_LABEL] !== String(shardOf(cr.metadata.uid ?? '', 4)))
        .map((cr) => cr.metadata.name);
    await expect.poll(misplaced, POLL).toEqual([]);
    const rolled = performance.now() - started;
    const crs = await settled(w, load.rounds, 4);
    const moves = w.all.flatMap((op) =>
      logLines(op).filter((l) => l.msg === 'Moved CR to its shard for the new shard count'),
    );
    process.stdout.write(
      `shard-count: 3 → 4 rolled and rebalanced in ${Math.round(rolled)} ms; ${crs.length} CRs, ${load.rounds.size - before.size} created during it, ${moves.length} moved\n`,
    );
    expect(load.errors).toEqual([]);
    const movedKeys = moves.map((l) => l.key);
    expect(movedKeys.length).toBeGreaterThan(0);
    expect(new Set(movedKeys).size).toBe(movedKeys.length); // each at most once
    for (const [name, label] of before) {
      const now = crs.find((cr) => cr.metadata.name === name)?.metadata.labels?.[SHARD_LABEL];
      if (name.startsWith('by-hand-')) expect(now, name).toBe(label);
    }

    // From now on, a new CR is labelled over the 4 shards, and reconciled by the holder of its shard.
    const fresh = Array.from({ length: 8 }, (_, i) => `late-${i}`);
    const created = await Promise.all(fresh.map((n) => w.crs.create(n, { round: 1 })));
    await expect
      .poll(
        async () => (await w.list()).filter((cr) => fresh.includes(cr.metadata.name) && deployed(cr, 1)).length,
        POLL,
      )
      .toBe(fresh.length);
    for (const cr of created) {
      const shard = shardOf(cr.metadata.uid ?? '', 4);
      expect((await w.crs.get(cr.metadata.name)).metadata.labels?.[SHARD_LABEL]).toBe(String(shard));
      const installed = logLines(w.byIndex.get(shard) as OperatorProcess).filter(
        (l) => l.msg === 'Installed release' && l.name === cr.metadata.name,
      );
      expect(installed, cr.metadata.name).toHaveLength(1);
    }
    expect(overlaps(reconcileIntervals(w.all))).toEqual([]);
  }, 300_000);
});

describe('shard count 3 → 2, as a rolling restart', () => {
  const w = world('op-shrink');

  it('moves the retired shard’s CRs once, with nothing reconciled twice at once and nothing lost', async () => {
    const names = await startAndFill(w, 3);
    const before = new Map((await w.list()).map((cr) => [cr.metadata.name, cr.metadata.labels?.[SHARD_LABEL]]));
    const load = churn(w.crs, names);
    const started = performance.now();
    // A StatefulSet scaled down with a new template: the last ordinal goes, then the others are restarted.
    expect(await w.byIndex.get(2)?.stop()).toBe(0);
    w.byIndex.delete(2);
    for (const i of [1, 0]) await roll(w, i, 2);
    await expect
      .poll(async () => (await w.list()).filter((cr) => cr.metadata.labels?.[SHARD_LABEL] === '2').length, POLL)
      .toBe(0);
    await load.stop();
    const crs = await settled(w, load.rounds, 2);
    process.stdout.write(
      `shard-count: 3 → 2 rolled and moved in ${Math.round(performance.now() - started)} ms; ${crs.length} CRs\n`,
    );
    expect(load.errors).toEqual([]);
    for (const cr of crs) {
      const uid = cr.metadata.uid ?? '';
      const now = cr.metadata.labels?.[SHARD_LABEL];
      const was = before.get(cr.metadata.name) ?? String(shardOf(uid, 3)); // a CR made during the roll: either count's
      // Shards 0 and 1 keep their CRs; those of the retired shard 2 go to their uid hash modulo 2.
      const want = was === '0' || was === '1' ? [was, String(shardOf(uid, 2))] : [String(shardOf(uid, 2))];
      if (before.has(cr.metadata.name)) want.splice(1);
      expect(want, cr.metadata.name).toContain(now);
    }
    const movers = w.all.filter((op) => logLines(op).some((l) => l.msg === 'Moving the CRs of a retired shard'));
    expect(movers.length).toBeGreaterThan(0);
  }, 300_000);
});
