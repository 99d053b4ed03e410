// Sharding between real operator processes on one control plane: three replicas (--shard-count=3, the shard from a
// StatefulSet-style POD_NAME) and 300 CRs; each CR is reconciled by exactly the replica its uid hashes to, a SIGKILLed
// replica's shard moves to a survivor once its Lease expires, and the replica coming back gets its shard handed back.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { shardLeaseName, shardOf } from '../../../src/leader/shard-hash.js';
import { boundAddress, loggedField } from '../../support/addresses.js';
import { type TestKube, uniqueName } from '../../support/kube.js';
import { type Cr, type crClient, type OperatorProcess, ROOT, type TestKind } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const SHARDS = 3;
const CRS = 300;
const LEASE_S = 6;
const RETRY_S = 1;
const POLL = { timeout: 60_000, interval: 500 } as const;
/** 300 helm installs on a 2-core machine take 65 s when it is quiet, 85 s under a load of 8. */
const DEPLOY_ALL = { timeout: 170_000, interval: 500 } as const;

interface Line {
  readonly msg?: string;
  readonly key?: string;
  readonly name?: string;
  readonly shard?: number;
  readonly identity?: string;
  readonly to?: string;
}

/** The operator's JSON log lines (stderr warnings of Node, if any, are skipped). */
function lines(op: OperatorProcess): Line[] {
  return op
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

/** The keys the process reconciled ("Reconciled" debug lines), from line `from` on. */
function reconciledKeys(op: OperatorProcess, from = 0): Set<string> {
  return new Set(
    lines(op)
      .slice(from)
      .filter((l) => l.msg === 'Reconciled' && l.key !== undefined)
      .map((l) => l.key as string),
  );
}

describe('sharding: three operator processes, 300 CRs', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const leaseId = uniqueName('shard');
  /** The replica of each shard, by index; replaced when one is killed and comes back. */
  const replicas: OperatorProcess[] = [];
  /** CR name → its shard, from its uid. */
  const shardOfCr = new Map<string, number>();

  const f = useOperatorFixture({
    kinds: [{ kind: 'Sharded', chart: `${ROOT}/test/fixtures/charts/sharded` }],
    namespaces: ['op-shard'],
    start: false,
  });
  const start = (index: number, env: Record<string, string> = { POD_NAME: `sharded-operator-${index}` }) =>
    f.start({
      args: [
        `--shard-count=${SHARDS}`,
        `--leader-election-id=${leaseId}`,
        `--leader-election-namespace=${ns}`,
        `--leader-elect-lease-duration=${LEASE_S}s`,
        '--leader-elect-renew-deadline=4s',
        `--leader-elect-retry-period=${RETRY_S}s`,
        '--reconcile-period=0',
        '--max-concurrent-reconciles=2',
        '--zap-log-level=debug',
        '--metrics-bind-address=127.0.0.1:0',
      ],
      env,
    });
  const identity = (op: OperatorProcess) => loggedField(op.output(), 'Campaigning for shard leases', 'identity');
  const holds = (op: OperatorProcess, shard: number) =>
    lines(op).some((l) => l.msg === 'Acquired shard' && l.shard === shard);
  const holder = async (shard: number) =>
    (await kube.coordination.readNamespacedLease({ name: shardLeaseName(leaseId, shard), namespace: ns })).spec
      ?.holderIdentity;
  const metric = async (op: OperatorProcess, name: string) => {
    const body = await (await fetch(`http://${boundAddress(op.output(), 'Serving metrics')}/metrics`)).text();
    return body.split('\n').find((l) => l.startsWith(`${name} `));
  };
  const list = async () =>
    (
      (await kube.custom.listNamespacedCustomObject({
        group: kind.group,
        version: kind.version,
        namespace: ns,
        plural: kind.plural,
      })) as { items: Cr[] }
    ).items;
  const deployedAt = async (round: number, names: readonly string[]) => {
    const wanted = new Set(names);
    return (await list()).filter(
      (cr) =>
        wanted.has(cr.metadata.name) &&
        (cr.spec as { round?: number }).round === round &&
        cr.status?.observedGeneration === cr.metadata.generation &&
        cr.status?.conditions?.some((c) => c.type === 'Deployed' && c.status === 'True'),
    ).length;
  };
  const names = Array.from({ length: CRS }, (_, i) => `cr-${String(i).padStart(3, '0')}`);
  const ofShard = (shard: number) => names.filter((n) => shardOfCr.get(n) === shard);

  beforeAll(async () => {
    ({ kube, kind, ns, crs } = f);
    // 300 releases are not uninstalled one by one at the end: once the operators stopped, the finalizers go and the
    // namespace takes the CRs, ConfigMaps and release Secrets with it.
    f.onCleanup(async () => {
      const items = await list();
      for (let i = 0; i < items.length; i += 25) {
        await Promise.all(
          items.slice(i, i + 25).map((cr) =>
            kube.custom.replaceNamespacedCustomObject({
              group: kind.group,
              version: kind.version,
              namespace: ns,
              plural: kind.plural,
              name: cr.metadata.name,
              body: { ...cr, metadata: { ...cr.metadata, finalizers: [] } },
            }),
          ),
        );
      }
    });
    for (let i = 0; i < SHARDS; i++) replicas.push(start(i));
    // Each replica takes its own shard (and no other) before any CR exists.
    await vi.waitFor(() => {
      replicas.forEach((op, i) => {
        expect(holds(op, i)).toBe(true);
      });
    }, POLL);
  });

  it('reconciles each CR in exactly one replica: the one its uid hashes to', async () => {
    const started = performance.now();
    for (let i = 0; i < CRS; i += 30) {
      await Promise.all(
        names.slice(i, i + 30).map(async (name) => {
          const cr = await crs.create(name, { round: 1 });
          shardOfCr.set(name, shardOf((cr.metadata as unknown as { uid: string }).uid, SHARDS));
        }),
      );
    }
    await expect.poll(() => deployedAt(1, names), DEPLOY_ALL).toBe(CRS);
    process.stdout.write(
      `sharding: ${CRS} CRs deployed by ${SHARDS} replicas in ${Math.round(performance.now() - started)} ms\n`,
    );

    for (let shard = 0; shard < SHARDS; shard++) expect(ofShard(shard).length).toBeGreaterThan(CRS / SHARDS / 2);
    const seen = new Map<string, number[]>();
    replicas.forEach((op, i) => {
      for (const key of reconciledKeys(op)) seen.set(key, [...(seen.get(key) ?? []), i]);
      const installed = lines(op)
        .filter((l) => l.msg === 'Installed release')
        .map((l) => l.name);
      expect(installed.sort()).toEqual(ofShard(i));
      expect(
        lines(op)
          .filter((l) => l.msg === 'Acquired shard')
          .map((l) => l.shard),
      ).toEqual([i]);
    });
    for (const name of names) expect(seen.get(`${ns}/${name}`), name).toEqual([shardOfCr.get(name)]);
    for (const op of replicas)
      expect(await metric(op, 'helm_operator_shards_held')).toBe('helm_operator_shards_held 1');
  }, 180_000);

  it('moves a SIGKILLed replica’s shard to a survivor once its Lease expires', async () => {
    const victim = 1;
    const dead = replicas[victim] as OperatorProcess;
    const survivors = replicas.filter((_, i) => i !== victim);
    const marks = survivors.map((op) => lines(op).length);
    const killedAt = performance.now();
    await dead.kill();
    const ids = new Map(survivors.map((op) => [identity(op), op]));
    await expect.poll(async () => ids.has(await holder(victim)), { timeout: 30_000, interval: 100 }).toBe(true);
    const took = performance.now() - killedAt;
    const taker = ids.get(await holder(victim)) as OperatorProcess;
    const other = survivors.find((op) => op !== taker) as OperatorProcess;
    // Every CR of the dead shard is reconciled again, by the taker only.
    const moved = ofShard(victim).map((n) => `${ns}/${n}`);
    await vi.waitFor(() => {
      const keys = reconciledKeys(taker, marks[survivors.indexOf(taker)]);
      expect(moved.filter((k) => !keys.has(k))).toEqual([]);
    }, POLL);
    const allMoved = performance.now() - killedAt;
    process.stdout.write(
      `sharding: shard ${victim} taken over ${Math.round(took)} ms after SIGKILL (lease ${LEASE_S} s); its ${moved.length} CRs reconciled by the taker after ${Math.round(allMoved)} ms\n`,
    );
    expect(took).toBeLessThan((LEASE_S + RETRY_S) * 1000 + 1_500);
    expect(await metric(taker, 'helm_operator_shards_held')).toBe('helm_operator_shards_held 2');

    // A new spec of the dead shard's CRs is deployed by the taker.
    const changed = ofShard(victim).slice(0, 10);
    await Promise.all(changed.map((n) => crs.setSpec(n, { round: 2 })));
    await expect.poll(() => deployedAt(2, changed), POLL).toBe(changed.length);
    const upgraded = lines(taker)
      .filter((l) => l.msg === 'Upgraded release')
      .map((l) => l.name);
    expect(upgraded.sort()).toEqual([...changed].sort());
    const otherKeys = reconciledKeys(other, marks[survivors.indexOf(other)]);
    expect(moved.filter((k) => otherKeys.has(k))).toEqual([]);
  });

  it('hands the shard back when its replica returns', async () => {
    const victim = 1;
    const takerIdentity = await holder(victim);
    const taker = replicas.find((op) => identity(op) === takerIdentity) as OperatorProcess;
    const back = start(victim);
    replicas[victim] = back;
    await vi.waitFor(() => expect(identity(back)).toBeDefined(), POLL);
    const since = performance.now();
    await expect.poll(() => holder(victim), { timeout: 30_000, interval: 100 }).toBe(identity(back));
    process.stdout.write(`sharding: shard ${victim} handed back in ${Math.round(performance.now() - since)} ms\n`);
    await vi.waitFor(() => expect(holds(back, victim)).toBe(true), POLL);
    expect(lines(taker).some((l) => l.msg === 'Handing shard back to its owner' && l.shard === victim)).toBe(true);
    expect(await metric(taker, 'helm_operator_shards_held')).toBe('helm_operator_shards_held 1');

    const mark = lines(taker).length;
    const name = ofShard(victim)[0] as string;
    await crs.setSpec(name, { round: 3 });
    await expect.poll(() => deployedAt(3, [name]), POLL).toBe(1);
    expect(
      lines(back)
        .filter((l) => l.msg === 'Upgraded release')
        .map((l) => l.name),
    ).toEqual([name]);
    expect(reconciledKeys(taker, mark).has(`${ns}/${name}`)).toBe(false);
  });

  it('refuses --shard-count without a shard index or a StatefulSet ordinal', async () => {
    const op = start(0, { POD_NAME: 'no-ordinal', HOSTNAME: 'no-ordinal' });
    expect(await op.exited).toBe(1);
    expect(op.output()).toContain(
      '--shard-count=3 needs --shard-index, or a StatefulSet pod name ending in -<ordinal>',
    );
    expect(op.helmCalls()).toEqual(['version']);
  });
});
