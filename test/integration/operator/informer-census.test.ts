// What one replica's informers hold and receive, on the real plane: after N CRs of the sample chart are Deployed,
// helm_operator_informer_objects shows N CRs, N release records (Secrets) and N of each dependent kind, and
// helm_operator_informer_watch_events_total counts the CRs' ADDED events; once they are deleted, the CR gauge is 0
// and the DELETED events are counted.
import { beforeAll, describe, expect, it } from 'vitest';
import { boundAddress } from '../../support/addresses.js';
import { isGone } from '../../support/kube.js';
import type { crClient, OperatorProcess, TestKind } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const N = 4;
const names = Array.from({ length: N }, (_, i) => `counted-${i}`);

describe('the informer census on /metrics', () => {
  let kind: TestKind;
  let op: OperatorProcess;
  let crs: ReturnType<typeof crClient>;

  const f = useOperatorFixture({
    kinds: ['Counted'],
    namespaces: ['op-census'],
    operator: () => ({ args: ['--metrics-bind-address=127.0.0.1:0', '--reconcile-period=0'] }),
  });
  beforeAll(() => {
    ({ kind, op, crs } = f);
    for (const name of names) f.track(kind, f.ns, name);
  });

  const scrape = async (): Promise<string> => {
    const at = boundAddress(op.output(), 'Serving metrics');
    return at === undefined ? '' : (await fetch(`http://${at}/metrics`)).text();
  };
  /** The value of one series, or undefined when it is not shown. */
  const value = (body: string, series: string): number | undefined => {
    const line = body.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('shows N CRs, N release records and N of each dependent kind held, and the CRs ADDED events', async () => {
    await expect.poll(scrape, POLL).toContain('helm_operator_informer_objects');
    for (const name of names) await crs.create(name, { replicaCount: 1 });
    for (const name of names) {
      await expect.poll(async () => (await crs.condition(name, 'Deployed'))?.status, POLL).toBe('True');
    }
    const objects = (k: string) => `helm_operator_informer_objects{kind="${k}"}`;
    const events = (k: string, type: string) => `helm_operator_informer_watch_events_total{kind="${k}",type="${type}"}`;
    await expect.poll(async () => value(await scrape(), objects(kind.kind)), POLL).toBe(N);
    // The sample chart renders a Deployment, a Service and a ConfigMap; its release record is one Secret.
    for (const dependent of ['Deployment', 'Service', 'ConfigMap', 'Secret']) {
      await expect.poll(async () => value(await scrape(), objects(dependent)), POLL).toBe(N);
    }
    const body = await scrape();
    // Created after the first LIST, each CR arrives as one ADDED event, then as MODIFIED events (finalizer, status).
    expect(value(body, events(kind.kind, 'ADDED'))).toBe(N);
    expect(value(body, events(kind.kind, 'MODIFIED'))).toBeGreaterThanOrEqual(N);
    expect(value(body, events('Secret', 'ADDED'))).toBeGreaterThanOrEqual(N);
  });

  it('drops the deleted CRs from the gauge and counts their DELETED events', async () => {
    for (const name of names) await crs.delete(name);
    for (const name of names) await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
    await expect
      .poll(async () => value(await scrape(), `helm_operator_informer_objects{kind="${kind.kind}"}`), POLL)
      .toBe(0);
    const deleted = value(
      await scrape(),
      `helm_operator_informer_watch_events_total{kind="${kind.kind}",type="DELETED"}`,
    );
    expect(deleted).toBe(N);
  });
});
