import { describe, expect, it, vi } from 'vitest';
import { NotFoundError } from '../../kube/errors.js';
import { baseRules, CHART_VERBS, chartRules, customResourceRules, discoverFromKube, mergeRules } from './rules.js';

const signal = () => new AbortController().signal;
const doc = (source: string, body: string) => `---\n# Source: ${source}\n${body}`;
const ALL = [...CHART_VERBS];

describe('chartRules', () => {
  it('grants exact verbs on each rendered standard kind, and skips helm test hooks', async () => {
    const manifest = [
      doc('web/templates/sa.yaml', 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n'),
      doc('web/templates/deploy.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n'),
      doc(
        'web/templates/hook.yaml',
        'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\n',
      ),
      doc(
        'web/templates/tests/t.yaml',
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    "helm.sh/hook": test\n',
      ),
    ].join('');
    const { rules, warnings, kinds } = await chartRules({ chart: 'charts/web', manifest }, signal());
    expect(mergeRules(rules)).toEqual([
      // A workload's pods are read to name why it is not ready (Ready's ImagePullBackOff, ...).
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ALL },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ALL },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ALL },
    ]);
    expect(kinds).toEqual(['apps/v1 Deployment', 'batch/v1 Job', 'v1 ServiceAccount']);
    expect(warnings).toEqual([]);
  });

  it('grants no pod read for a chart without workloads', async () => {
    const manifest = doc('web/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n');
    const { rules } = await chartRules({ chart: 'charts/web', manifest }, signal());
    expect(rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ALL }]);
  });

  it("takes plural and scope of the chart's own CRDs, from crds/ or templates", async () => {
    const crd = (group: string, kind: string, plural: string, scope: string) =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.${group}\nspec:\n  group: ${group}\n  scope: ${scope}\n  names:\n    kind: ${kind}\n    plural: ${plural}\n`;
    const manifest = [
      doc('web/crds/widgets.yaml', crd('w.example.org', 'Widget', 'widgetz', 'Namespaced')),
      doc('web/templates/gadget-crd.yaml', crd('g.example.org', 'Gadget', 'gadgets', 'Cluster')),
      doc('web/templates/w.yaml', 'apiVersion: w.example.org/v1\nkind: Widget\nmetadata:\n  name: a\n'),
      doc('web/templates/g.yaml', 'apiVersion: g.example.org/v2\nkind: Gadget\nmetadata:\n  name: b\n'),
    ].join('');
    const { rules } = await chartRules({ chart: 'charts/web', manifest }, signal());
    expect(mergeRules(rules)).toEqual([
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ALL },
      { apiGroups: ['g.example.org'], resources: ['gadgets'], verbs: ALL },
      { apiGroups: ['w.example.org'], resources: ['widgetz'], verbs: ALL },
    ]);
  });

  it('asks discover (a reachable cluster) for kinds it does not know', async () => {
    const discover = vi.fn(async () => ({ resource: 'httproutes', namespaced: true }));
    const manifest = doc(
      'web/templates/r.yaml',
      'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n',
    );
    const { rules } = await chartRules({ chart: 'charts/web', manifest, discover }, signal());
    expect(discover).toHaveBeenCalledWith(
      { group: 'gateway.networking.k8s.io', version: 'v1', kind: 'HTTPRoute' },
      expect.anything(),
    );
    expect(rules).toEqual([{ apiGroups: ['gateway.networking.k8s.io'], resources: ['httproutes'], verbs: ALL }]);
  });

  it("adapts the kube client's discovery: not served is undefined, other failures are thrown", async () => {
    const gvk = { group: 'g.example.org', version: 'v1', kind: 'Gadget' };
    const serverVersion = async () => ({ major: '1', minor: '31', gitVersion: 'v1.31.2' });
    const served = discoverFromKube({
      discover: async (k) => ({ ...k, plural: 'gadgets', namespaced: false }),
      serverVersion,
    });
    expect(await served(gvk, signal())).toEqual({ resource: 'gadgets', namespaced: false });
    const missing = discoverFromKube({
      serverVersion,
      discover: async () => {
        throw new NotFoundError({ status: 404, reason: 'NotFound', serverMessage: 'no', operation: 'DISCOVER' });
      },
    });
    expect(await missing(gvk, signal())).toBeUndefined();
    const broken = discoverFromKube({
      serverVersion,
      discover: async () => {
        throw new Error('connection refused');
      },
    });
    await expect(broken(gvk, signal())).rejects.toThrow('connection refused');
  });

  it("tells the cluster's version (its /version gitVersion), which charts are then rendered for", async () => {
    const discover = discoverFromKube({
      discover: async () => {
        throw new Error('unused');
      },
      serverVersion: async () => ({ major: '1', minor: '30+', gitVersion: 'v1.30.4-eks-a737599' }),
    });
    expect(await discover.serverVersion?.(signal())).toBe('v1.30.4-eks-a737599');
  });

  it('throws a typed error naming every unknown kind and its template, never a broad rule', async () => {
    const manifest = [
      doc('web/templates/a.yaml', 'apiVersion: x.example.org/v1\nkind: Foo\nmetadata:\n  name: a\n'),
      doc('web/templates/b.yaml', 'apiVersion: x.example.org/v1\nkind: Foo\nmetadata:\n  name: b\n'),
      doc('web/templates/c.yaml', 'apiVersion: y.example.org/v1beta1\nkind: Bar\nmetadata:\n  name: c\n'),
    ].join('');
    const err = await chartRules({ chart: 'charts/web', manifest }, signal()).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'SCAFFOLD_UNKNOWN_KIND',
      chart: 'charts/web',
      clusterChecked: false,
      kinds: [
        { apiVersion: 'x.example.org/v1', kind: 'Foo', source: 'web/templates/a.yaml' },
        { apiVersion: 'y.example.org/v1beta1', kind: 'Bar', source: 'web/templates/c.yaml' },
      ],
    });
    expect(String(err)).toMatch(/no cluster was reachable[\s\S]*Install the kind's CRD/);
    const discover = async () => undefined;
    const checked = await chartRules({ chart: 'charts/web', manifest, discover }, signal()).catch((e: unknown) => e);
    expect(String(checked)).toMatch(/nor served by the cluster/);
  });

  it('adds escalate and bind on the role kinds the chart creates or binds, with a warning', async () => {
    const manifest = [
      doc('web/templates/role.yaml', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n'),
      doc(
        'web/templates/rb.yaml',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nroleRef:\n  kind: ClusterRole\n  name: view\n',
      ),
    ].join('');
    const { rules, warnings } = await chartRules({ chart: 'charts/web', manifest }, signal());
    expect(mergeRules(rules)).toEqual([
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ALL },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: [...ALL, 'escalate'].sort() },
    ]);
    expect(warnings).toEqual([expect.stringMatching(/^charts\/web creates RBAC objects: .*escalate/)]);
  });
});

describe("the operator's own rules", () => {
  it('cover release Secrets and Events, and the CRs (never created or deleted) with status and finalizers', () => {
    expect(mergeRules([...baseRules(), ...customResourceRules('cache.example.com', 'memcacheds')])).toEqual([
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ALL },
      {
        apiGroups: ['cache.example.com'],
        resources: ['memcacheds'],
        verbs: ['get', 'list', 'patch', 'update', 'watch'],
      },
      { apiGroups: ['cache.example.com'], resources: ['memcacheds/finalizers'], verbs: ['update'] },
      { apiGroups: ['cache.example.com'], resources: ['memcacheds/status'], verbs: ['get', 'patch', 'update'] },
    ]);
  });
});

describe('mergeRules', () => {
  it('unions verbs, groups resources with equal verbs, and is deterministic whatever the input order', () => {
    const rules = [
      { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get'] },
      { apiGroups: ['', 'apps'], resources: ['pods', 'deployments'], verbs: ['list', 'get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['watch'] },
    ];
    const merged = mergeRules(rules);
    expect(merged).toEqual([
      { apiGroups: [''], resources: ['deployments'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments', 'pods'], verbs: ['get', 'list'] },
      { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get'] },
    ]);
    expect(mergeRules([...rules].reverse())).toEqual(merged);
  });
});
