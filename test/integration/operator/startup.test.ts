// Startup validation with the real binary: a bad watches.yaml is a clear error and a non-zero exit before the
// operator touches the cluster (proven with a kubeconfig that points nowhere).
import { describe, expect, it } from 'vitest';
import { SAMPLE_CHART } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

// No CRD, no namespace: each test starts its own operator, which must fail before it touches the cluster.
const f = useOperatorFixture({ kinds: [], namespaces: [], start: false });

describe('when watches.yaml is invalid', () => {
  it('exits non-zero naming the file, entry and field, before connecting to the cluster', async () => {
    const op = f.start({
      watches: `- group: demo.example.com\n  version: v1alpha1\n  chart: ${SAMPLE_CHART}\n- group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: /no/such/chart\n`,
      env: { KUBECONFIG: '/nonexistent/kubeconfig' },
    });
    expect(await op.exited).toBe(1);
    const out = op.output();
    expect(out).toMatch(/watches\.yaml:1: entry 1: kind: missing/);
    expect(out).toMatch(
      /watches\.yaml:4: entry 2 \(demo\.example\.com\/v1alpha1, Kind=Nginx\): chart: \\"\/no\/such\/chart\\" is not a Helm chart directory/,
    );
    expect(out).toContain('"code":"WATCHES_INVALID"');
    expect(out).not.toContain('Connecting to the API server');
    expect(op.helmCalls()).toEqual([]);
  });
});

describe('when the helm binary is missing', () => {
  it('exits non-zero and says how to point the operator at helm', async () => {
    const op = f.start({
      watches: `- group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: ${SAMPLE_CHART}\n`,
      env: { HELM_BINARY: '/nonexistent/helm' },
    });
    expect(await op.exited).toBe(1);
    expect(op.output()).toMatch(/HELM_BINARY|--helm-binary/);
  });
});

describe('when a flag of run is invalid', () => {
  it('exits 2 with one plain line naming the flag and its code, before any log line', async () => {
    const op = f.start({
      watches: `- group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: ${SAMPLE_CHART}\n`,
      args: ['--reconcile-period=abc'],
      env: { KUBECONFIG: '/nonexistent/kubeconfig' },
    });
    expect(await op.exited).toBe(2);
    const out = op.output();
    expect(out).toMatch(/^helm-operator run: --reconcile-period: invalid duration "abc"[^\n]*\(CONFIG_INVALID\)\n$/);
    expect(out).not.toContain('{'); // no JSON log line: the logger never started
  });
});
