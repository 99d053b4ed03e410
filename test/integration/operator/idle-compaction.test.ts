// The memory a burst took goes back once the operator is quiet (--compact-when-idle), on the real plane with real
// helm: 12 CRs installed at once, then one full garbage collection after the last helm call, logged with the helm
// calls it followed and the RSS before and after; none while the burst ran, and none again while nothing happens.
import { beforeAll, describe, expect, it } from 'vitest';
import type { crClient, OperatorProcess, TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';
import { until } from '../../support/until.js';

const N = 12;
const names = Array.from({ length: N }, (_, i) => `burst-${i}`);
const MESSAGE = 'Gave back the memory of a burst of helm calls';

describe('compaction once a burst of helm calls ends', () => {
  let kind: TestKind;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;

  const f = useOperatorFixture({
    kinds: ['Burst'],
    namespaces: ['op-compact'],
    operator: () => ({ args: ['--compact-when-idle=1s', '--reconcile-period=0'] }),
  });
  beforeAll(() => {
    ({ kind, op, crs } = f);
    for (const name of names) f.track(kind, f.ns, name);
  });

  const compactions = () =>
    op
      .output()
      .split('\n')
      .filter((l) => l.includes(MESSAGE))
      .map((l) => JSON.parse(l) as { helmCalls: number; rssMiBBefore: number; rssMiBAfter: number; time: string });

  it('collects once after the burst, never during it, and names the calls and the RSS', async () => {
    await Promise.all(names.map((name) => crs.create(name, { replicaCount: 1 })));
    for (const name of names) {
      await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    }
    const first = await until('the compaction after the burst', () => compactions()[0], { timeoutMs: 30_000 });
    expect(first.helmCalls).toBeGreaterThanOrEqual(N);
    expect(first.rssMiBBefore).toBeGreaterThan(0);
    expect(first.rssMiBAfter).toBeGreaterThan(0);
    // Not during the burst: a second (the quiet time) after the last install.
    const installs = op
      .output()
      .split('\n')
      .filter((l) => l.includes('"Installed release"'))
      .map((l) => Date.parse((JSON.parse(l) as { time: string }).time));
    expect(installs).toHaveLength(N);
    expect(Date.parse(first.time) - Math.max(...installs)).toBeGreaterThanOrEqual(900);
    expect(compactions()).toHaveLength(1);
  });
});
