// Leader election between real operator processes on one Lease: exactly one leads and runs helm while the standby
// only waits (and is ready); a SIGKILLed leader is replaced once its lease expires, and a gracefully stopped one
// releases the lease so that the standby takes over at once.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { boundAddress, loggedField, type ServerMessage } from '../../support/addresses.js';
import { type TestKube, uniqueName } from '../../support/kube.js';
import type { crClient, OperatorProcess, TestKind } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const POLL = { timeout: 60_000, interval: 200 } as const;

interface Candidate {
  readonly op: OperatorProcess;
  readonly label: string;
}

describe('leader election between two operator processes', () => {
  let kube: TestKube;
  let kind: TestKind;
  let ns: string;
  let crs: ReturnType<typeof crClient>;
  const leaseId = uniqueName('le');
  const started: Candidate[] = [];
  let leader: Candidate;
  let standby: Candidate;

  const start = (label: string): Candidate => {
    const op = f.start({
      args: [
        '--leader-elect',
        `--leader-election-id=${leaseId}`,
        `--leader-election-namespace=${ns}`,
        '--reconcile-period=0',
        '--metrics-bind-address=127.0.0.1:0',
        '--health-probe-bind-address=127.0.0.1:0',
      ],
    });
    const c = { op, label };
    started.push(c);
    return c;
  };
  /** The value of field `key` in the first log line with message `msg`. */
  const logged = (c: Candidate, msg: string, key: string): string | undefined => loggedField(c.op.output(), msg, key);
  const identity = (c: Candidate) => logged(c, 'Attempting to acquire leader lease', 'identity');
  const readLease = () => kube.coordination.readNamespacedLease({ name: leaseId, namespace: ns });
  const holder = async () => (await readLease()).spec?.holderIdentity;
  const http = async (c: Candidate, server: ServerMessage, path: string) => {
    const res = await fetch(`http://${boundAddress(c.op.output(), server)}${path}`);
    return { status: res.status, body: await res.text() };
  };
  const deployed = async (name: string) => (await crs.condition(name, 'Deployed'))?.status;
  /** Waits until `c` holds the lease; returns how long that took from `since` (performance.now()). */
  const waitForHolder = async (c: Candidate, since: number, timeout: number): Promise<number> => {
    const id = identity(c);
    expect(id).toMatch(/_[0-9a-f-]{36}$/);
    await expect.poll(holder, { timeout, interval: 100 }).toBe(id);
    return performance.now() - since;
  };

  // The CRs go while the current leader still runs, so their releases are uninstalled and finalizers removed.
  const f = useOperatorFixture({ kinds: ['Elected'], namespaces: ['op-leader'], start: false, poll: POLL });
  beforeAll(async () => {
    ({ kube, kind, ns, crs } = f);
    for (const name of ['one', 'two', 'three']) f.track(kind, ns, name);
    const a = start('a');
    const b = start('b');
    await vi.waitFor(() => {
      expect(identity(a)).toBeDefined();
      expect(identity(b)).toBeDefined();
    }, POLL);
  });

  it('elects exactly one leader; only it runs helm, and the standby is ready', async () => {
    const [a, b] = started;
    if (a === undefined || b === undefined) throw new Error('two operators should have started');
    await expect.poll(holder, POLL).toSatisfy((h) => h === identity(a) || h === identity(b));
    const current = await holder();
    [leader, standby] = current === identity(a) ? [a, b] : [b, a];
    await vi.waitFor(() => expect(leader.op.output()).toContain('"msg":"Successfully acquired lease"'), POLL);

    await crs.create('one', { replicaCount: 1 });
    await expect.poll(() => deployed('one'), POLL).toBe('True');
    expect(leader.op.helmCalls()).toContain('install');
    expect(standby.op.helmCalls()).toEqual(['version']);
    expect(standby.op.output()).not.toContain('"msg":"Watching resource"');

    expect(await http(standby, 'Serving health probes', '/readyz')).toEqual({ status: 200, body: 'ok' });
    await vi.waitFor(
      async () => expect((await http(leader, 'Serving health probes', '/readyz')).status).toBe(200),
      POLL,
    );
    expect((await http(leader, 'Serving metrics', '/metrics')).body).toContain(
      `leader_election_master_status{name="${leaseId}"} 1`,
    );
    expect((await http(standby, 'Serving metrics', '/metrics')).body).toContain(
      `leader_election_master_status{name="${leaseId}"} 0`,
    );
  });

  it('replaces a SIGKILLed leader once its lease expires', async () => {
    const killedAt = performance.now();
    await leader.op.kill();
    const took = await waitForHolder(standby, killedAt, 30_000);
    process.stdout.write(`leader election: takeover after SIGKILL took ${Math.round(took)} ms\n`);
    expect(took).toBeLessThan(15_000 + 2_000 + 3_000);
    [leader, standby] = [standby, start('c')];
    expect((await readLease()).spec?.leaseTransitions).toBeGreaterThanOrEqual(1);

    await crs.create('two', { replicaCount: 1 });
    await expect.poll(() => deployed('two'), POLL).toBe('True');
    expect(leader.op.helmCalls()).toContain('install');
  });

  it('releases the lease on a graceful stop, so the standby takes over at once', async () => {
    await vi.waitFor(() => expect(identity(standby)).toBeDefined(), POLL);
    const stoppedAt = performance.now();
    expect(await leader.op.stop()).toBe(0);
    expect(leader.op.output()).toContain('"msg":"Released leader lease"');
    const lease = await readLease();
    // Either still released, or already taken by the standby.
    expect(
      lease.spec?.holderIdentity === identity(standby) ||
        (lease.spec?.holderIdentity === '' && lease.spec.leaseDurationSeconds === 1),
    ).toBe(true);
    const took = await waitForHolder(standby, stoppedAt, 15_000);
    process.stdout.write(`leader election: takeover after a graceful stop took ${Math.round(took)} ms\n`);
    expect(took).toBeLessThan(8_000);
    leader = standby;

    await crs.create('three', { replicaCount: 1 });
    await expect.poll(() => deployed('three'), POLL).toBe('True');
    expect(leader.op.helmCalls()).toContain('install');
  });
});

describe('leader election, failure paths', () => {
  let kube: TestKube;
  let ns: string;

  const f = useOperatorFixture({ kinds: ['Deposed'], namespaces: ['op-leader-fail'], start: false });
  beforeAll(() => {
    ({ kube, ns } = f);
  });

  it('refuses to start without a lease namespace outside a cluster', async () => {
    const op = f.start({
      args: ['--leader-elect', `--leader-election-id=${uniqueName('le')}`],
      env: { WATCH_NAMESPACE: ns },
    });
    expect(await op.exited).toBe(1);
    expect(op.output()).toContain(
      'unable to find leader election namespace: not running in-cluster, please specify --leader-election-namespace',
    );
    expect(op.helmCalls()).toEqual(['version']);
  });

  it('stops reconciling and exits 1 when another holder takes the lease', async () => {
    const name = uniqueName('le');
    const op = f.start({
      args: ['--leader-elect', `--leader-election-id=${name}`, `--leader-election-namespace=${ns}`],
      env: { WATCH_NAMESPACE: ns },
    });
    await vi.waitFor(() => expect(op.output()).toContain('"msg":"Watching resource"'), POLL);
    // Another instance "wins" the lease (as after a long partition): a fresh renewTime and a long duration.
    const now = new Date().toISOString().replace(/Z$/, '000Z');
    await kube.coordination.patchNamespacedLease({
      name,
      namespace: ns,
      body: [
        { op: 'replace', path: '/spec/holderIdentity', value: 'intruder' },
        { op: 'replace', path: '/spec/renewTime', value: now },
        { op: 'replace', path: '/spec/leaseDurationSeconds', value: 60 },
      ],
    });
    const since = performance.now();
    expect(await op.exited).toBe(1);
    expect(performance.now() - since).toBeLessThan(10_000);
    expect(op.output()).toContain('"msg":"Leader election lost"');
    expect((await kube.coordination.readNamespacedLease({ name, namespace: ns })).spec?.holderIdentity).toBe(
      'intruder',
    );
  });
});
