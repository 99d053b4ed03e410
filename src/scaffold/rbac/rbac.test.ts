import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import { parse } from '../../config/yaml.js';
import type { HelmCli, TemplateParams } from '../../helm/types.js';
import { rulesForKind } from './kind-rules.js';
import { DEFAULT_KUBE_VERSION } from './kube-version.js';
import { generateRbac } from './rbac.js';
import { kindRoleFiles, readManagerRules, renderManagerRole } from './role-files.js';
import { CHART_VERBS, type DiscoverKind, type PolicyRule } from './rules.js';

const helmBin = findHelm();
const NGINX = join(import.meta.dirname, '..', '..', '..', 'charts', 'nginx');
const signal = () => new AbortController().signal;
const ALL = [...CHART_VERBS];
const resources = (rules: readonly PolicyRule[], group: string) =>
  [...new Set(rules.filter((r) => r.apiGroups.includes(group)).flatMap((r) => r.resources))].sort();

let dir = '';
let helm: HelmCli;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rbac-test-'));
  if (helmBin !== undefined) helm = await scaffoldHelm(helmBin, dir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(helmBin === undefined)(
  `rules of a helm create chart ${helmBin === undefined ? SKIP_REASON : ''}`,
  { timeout: 30_000 },
  () => {
    const kindInput = () => ({
      group: 'cache.example.com',
      kind: 'Web',
      plural: 'webs',
      chartDir: join(dir, 'web'),
      chartLabel: 'charts/web',
    });

    it('cover what its default values render: Deployment, Service, ServiceAccount, not the test Pod, HPA or Ingress', async () => {
      await helm.create({ name: 'web', dir, signal: signal() });
      const { rules, warnings } = await rulesForKind(kindInput(), { helm }, signal());
      expect(resources(rules, '')).toEqual(['pods', 'serviceaccounts', 'services']); // pods: get, list (Ready's cause)
      expect(resources(rules, 'apps')).toEqual(['deployments']);
      expect(resources(rules, 'autoscaling')).toEqual([]);
      expect(resources(rules, 'networking.k8s.io')).toEqual([]);
      expect(resources(rules, 'cache.example.com')).toEqual(['webs', 'webs/finalizers', 'webs/status']);
      expect(rules.find((r) => r.resources.includes('deployments'))?.verbs).toEqual(ALL);
      expect(warnings).toEqual([
        expect.stringMatching(
          /templates also declare HTTPRoute, HorizontalPodAutoscaler, Ingress, which CRs can enable/,
        ),
      ]);
    });

    it('cover ingresses and HPAs once the default values enable them', async () => {
      await helm.create({ name: 'web', dir, signal: signal() });
      const values = await readFile(join(dir, 'web', 'values.yaml'), 'utf8');
      await writeFile(
        join(dir, 'web', 'values.yaml'),
        values
          .replace(/^ingress:\n {2}enabled: false/m, 'ingress:\n  enabled: true')
          .replace(/^autoscaling:\n {2}enabled: false/m, 'autoscaling:\n  enabled: true'),
      );
      const { rules, warnings } = await rulesForKind(kindInput(), { helm }, signal());
      expect(resources(rules, 'networking.k8s.io')).toEqual(['ingresses']);
      expect(resources(rules, 'autoscaling')).toEqual(['horizontalpodautoscalers']);
      expect(warnings.join()).not.toMatch(/Ingress|HorizontalPodAutoscaler/);
    });
  },
);

describe.skipIf(helmBin === undefined)('generateRbac', { timeout: 30_000 }, () => {
  it("rebuilds role.yaml from every watches.yaml entry, keeping the role's metadata and using the CRD plurals", async () => {
    const project = join(dir, 'p');
    await mkdir(join(project, 'config/rbac'), { recursive: true });
    await mkdir(join(project, 'config/crd/bases'), { recursive: true });
    await cp(NGINX, join(project, 'charts/nginx'), { recursive: true });
    await helm.create({ name: 'web', dir: join(project, 'charts'), signal: signal() });
    await writeFile(
      join(project, 'watches.yaml'),
      '- {group: demo.example.com, version: v1, kind: Nginx, chart: charts/nginx}\n- {group: demo.example.com, version: v1, kind: Web, chart: charts/web}\n',
    );
    await writeFile(
      join(project, 'config/crd/bases/x.yaml'),
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: demo.example.com\n  names:\n    kind: Web\n    plural: webbies\n',
    );
    await writeFile(
      join(project, 'config/rbac/role.yaml'),
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\n  labels:\n    team: a\nrules:\n- apiGroups: [""]\n  resources: [pods/log]\n  verbs: [get]\n',
    );
    const result = await generateRbac({ projectDir: project }, { helm }, signal());
    const role = parse(await readFile(join(project, 'config/rbac/role.yaml'), 'utf8'));
    expect(role.metadata).toEqual({ name: 'manager-role', labels: { team: 'a' } });
    expect(role.rules).toEqual(result.rules);
    expect(resources(result.rules, '')).toEqual([
      'configmaps',
      'events',
      'pods',
      'pods/log',
      'secrets',
      'serviceaccounts',
      'services',
    ]);
    expect(resources(result.rules, 'apps')).toEqual(['deployments']);
    // Derived: the operator lists a not-ready Deployment's pods to name why (Ready's ImagePullBackOff, ...).
    expect(result.rules).toContainEqual({ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] });
    expect(resources(result.rules, 'demo.example.com')).toEqual([
      'nginxes',
      'nginxes/finalizers',
      'nginxes/status',
      'webbies',
      'webbies/finalizers',
      'webbies/status',
    ]);
    // The hand-added rule is kept, named in a warning, and regeneration is stable.
    expect(result.rules).toContainEqual({ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] });
    expect(result.warnings).toContainEqual(
      expect.stringMatching(
        /^config\/rbac\/role\.yaml: kept a rule .*\(get on pods\/log\).*belong in config\/rbac\/extra_role\.yaml/,
      ),
    );
    const first = await readFile(join(project, 'config/rbac/role.yaml'), 'utf8');
    await generateRbac({ projectDir: project }, { helm }, signal());
    expect(await readFile(join(project, 'config/rbac/role.yaml'), 'utf8')).toBe(first);
    expect(await readManagerRules(project)).toEqual(result.rules);
  });
});

describe.skipIf(helmBin === undefined)(
  'generateRbac over samples, values files and hand-written rules',
  { timeout: 30_000 },
  () => {
    const HAND =
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-extra-role\nrules:\n- apiGroups: [""]\n  resources: [namespaces]\n  verbs: [get]\n';
    const setUp = async () => {
      const project = join(dir, 'p');
      await mkdir(join(project, 'config/rbac'), { recursive: true });
      await mkdir(join(project, 'config/samples'), { recursive: true });
      await mkdir(join(project, 'charts'));
      await helm.create({ name: 'web', dir: join(project, 'charts'), signal: signal() });
      await writeFile(
        join(project, 'watches.yaml'),
        '- {group: demo.example.com, version: v1, kind: Web, chart: charts/web}\n',
      );
      await writeFile(join(project, 'config/rbac/kustomization.yaml'), 'resources:\n- role.yaml\n');
      return project;
    };
    const sample = (spec: string) => `apiVersion: demo.example.com/v1\nkind: Web\nmetadata:\n  name: s\nspec:\n${spec}`;

    it('adds what a sample enables: its Ingress gets exact verbs, and the warning no longer names Ingress', async () => {
      const project = await setUp();
      const before = await generateRbac({ projectDir: project }, { helm }, signal());
      expect(resources(before.rules, 'networking.k8s.io')).toEqual([]);
      await writeFile(join(project, 'config/samples/web.yaml'), sample('  ingress:\n    enabled: true\n'));
      const after = await generateRbac({ projectDir: project }, { helm }, signal());
      expect(after.rules).toContainEqual({ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ALL });
      expect(after.warnings.join('\n')).toMatch(/also declare HTTPRoute, HorizontalPodAutoscaler, which CRs/);
    });

    it('adds what a --values file enables, for every kind or the named one only', async () => {
      const project = await setUp();
      await writeFile(join(project, 'hpa.yaml'), 'autoscaling:\n  enabled: true\n');
      const forWeb = await generateRbac(
        { projectDir: project, valuesFiles: [{ kind: 'Web', file: join(project, 'hpa.yaml') }] },
        { helm },
        signal(),
      );
      expect(resources(forWeb.rules, 'autoscaling')).toEqual(['horizontalpodautoscalers']);
      await expect(
        generateRbac(
          { projectDir: project, valuesFiles: [{ file: join(project, 'missing.yaml') }] },
          { helm },
          signal(),
        ),
      ).rejects.toThrow(/--values .*missing\.yaml: cannot read it \(ENOENT\)/);
      await expect(
        generateRbac(
          { projectDir: project, valuesFiles: [{ kind: 'Db', file: join(project, 'hpa.yaml') }] },
          { helm },
          signal(),
        ),
      ).rejects.toThrow(/no watches\.yaml entry has kind Db \(kinds: Web\)/);
    });

    it('names a sample whose spec the chart cannot render, and what to fix', async () => {
      const project = await setUp();
      await writeFile(join(project, 'config/samples/web.yaml'), sample('  image: broken\n'));
      await expect(generateRbac({ projectDir: project }, { helm }, signal())).rejects.toThrow(
        /cannot render charts\/web with the spec of config\/samples\/web\.yaml .*fix that sample/,
      );
    });

    it('never writes extra_role.yaml, and moves out of role.yaml a rule that extra_role.yaml holds', async () => {
      const project = await setUp();
      await writeFile(join(project, 'config/rbac/extra_role.yaml'), HAND);
      await writeFile(
        join(project, 'config/rbac/role.yaml'),
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules:\n- apiGroups: [""]\n  resources: [namespaces]\n  verbs: [get]\n',
      );
      const result = await generateRbac({ projectDir: project }, { helm }, signal());
      expect(resources(result.rules, '')).not.toContain('namespaces');
      expect(result.warnings.join('\n')).not.toMatch(/kept/);
      expect(result.created).toEqual([]);
      expect(await readFile(join(project, 'config/rbac/extra_role.yaml'), 'utf8')).toBe(HAND);
    });

    it('gives an older project the empty extra role, its binding and their kustomization entries', async () => {
      const project = await setUp();
      const result = await generateRbac({ projectDir: project }, { helm }, signal());
      expect(result.created).toEqual([
        'config/rbac/extra_role.yaml',
        'config/rbac/extra_role_binding.yaml',
        'config/rbac/kustomization.yaml',
      ]);
      const kustomization = parse(await readFile(join(project, 'config/rbac/kustomization.yaml'), 'utf8'));
      expect(kustomization.resources).toEqual(['role.yaml', 'extra_role.yaml', 'extra_role_binding.yaml']);
      expect(await readManagerRules(project, 'config/rbac/extra_role.yaml')).toEqual([]);
    });
  },
);

describe.skipIf(helmBin === undefined)('generateRbac --values-from', { timeout: 30_000 }, () => {
  const setUp = async () => {
    const project = join(dir, 'p');
    await mkdir(join(project, 'config/rbac'), { recursive: true });
    await mkdir(join(project, 'charts'));
    await helm.create({ name: 'web', dir: join(project, 'charts'), signal: signal() });
    await writeFile(
      join(project, 'watches.yaml'),
      '- {group: demo.example.com, version: v1, kind: Web, chart: charts/web}\n',
    );
    await writeFile(join(project, 'PROJECT'), '# kept\ndomain: example.com\nprojectName: p\nresources: []\n');
    return project;
  };
  const configMapRules = (rules: readonly PolicyRule[]) =>
    rules.filter((r) => r.apiGroups.includes('') && r.resources.includes('configmaps'));

  it('grants no read of ConfigMaps without it (the chart renders none)', async () => {
    const project = await setUp();
    const { rules } = await generateRbac({ projectDir: project }, { helm }, signal());
    expect(configMapRules(rules)).toEqual([]);
  });

  it('grants get, list and watch on ConfigMaps and Secrets, and records it in PROJECT for every later run', async () => {
    const project = await setUp();
    const first = await generateRbac({ projectDir: project, valuesFrom: true }, { helm }, signal());
    expect(configMapRules(first.rules)).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(first.rules.find((r) => r.resources.includes('secrets'))?.verbs).toEqual(
      expect.arrayContaining(['get', 'list', 'watch']),
    );
    const projectFile = await readFile(join(project, 'PROJECT'), 'utf8');
    expect(projectFile).toMatch(/^# kept\n/);
    expect(parse(projectFile).valuesFrom).toBe(true);
    const again = await generateRbac({ projectDir: project }, { helm }, signal());
    expect(again.rules).toEqual(first.rules);
  });
});

describe('the Kubernetes version helm template renders each chart for', () => {
  const fakeHelm = () => ({ template: vi.fn(async (_p: TemplateParams) => '') });
  const project = async () => {
    const p = join(dir, 'p');
    await mkdir(join(p, 'config/rbac'), { recursive: true });
    await mkdir(join(p, 'charts/web'), { recursive: true });
    await writeFile(join(p, 'charts/web/Chart.yaml'), 'apiVersion: v2\nname: web\nversion: 0.1.0\n');
    await writeFile(
      join(p, 'watches.yaml'),
      '- {group: demo.example.com, version: v1, kind: Web, chart: charts/web}\n',
    );
    return p;
  };
  const cluster = (version: string): DiscoverKind =>
    Object.assign(async () => undefined, { serverVersion: async () => version });

  it('is the built-in default when no cluster answers and no flag is given', async () => {
    const helm = fakeHelm();
    await rulesForKind(
      { group: 'g.example.com', kind: 'Web', plural: 'webs', chartDir: dir, chartLabel: 'charts/web' },
      { helm },
      signal(),
    );
    expect(helm.template.mock.calls[0]?.[0]).toMatchObject({ kubeVersion: DEFAULT_KUBE_VERSION });
  });

  it("is the cluster's version when one answers, and --kube-version when given", async () => {
    const projectDir = await project();
    const helm = fakeHelm();
    await generateRbac({ projectDir }, { helm, discover: cluster('v1.31.1') }, signal());
    expect(helm.template.mock.calls[0]?.[0]).toMatchObject({ kubeVersion: 'v1.31.1' });
    await generateRbac({ projectDir, kubeVersion: 'v1.24.0' }, { helm, discover: cluster('v1.31.1') }, signal());
    expect(helm.template.mock.calls[1]?.[0]).toMatchObject({ kubeVersion: 'v1.24.0' });
  });
});

describe('the role files', () => {
  it('render the manager role in kubebuilder style with a header', () => {
    const text = renderManagerRole([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    expect(text).toMatch(/^# The manager role, generated by/);
    expect(text).toContain('rules:\n- apiGroups:\n  - ""\n  resources:\n  - secrets\n  verbs:\n  - get\n');
  });

  it("give each kind kubebuilder's admin, editor and viewer ClusterRoles", () => {
    const files = kindRoleFiles('cache.example.com', 'Memcached', 'memcacheds');
    expect(Object.keys(files)).toEqual([
      'config/rbac/memcached_admin_role.yaml',
      'config/rbac/memcached_editor_role.yaml',
      'config/rbac/memcached_viewer_role.yaml',
    ]);
    const verbs = (name: string) =>
      parse(files[`config/rbac/memcached_${name}_role.yaml`] ?? '').rules.map((r: PolicyRule) => r.verbs);
    expect(verbs('admin')).toEqual([['*'], ['get']]);
    expect(verbs('editor')).toEqual([ALL, ['get']]);
    expect(verbs('viewer')).toEqual([['get', 'list', 'watch'], ['get']]);
    expect(parse(files['config/rbac/memcached_viewer_role.yaml'] ?? '')).toMatchObject({
      kind: 'ClusterRole',
      metadata: { name: 'memcached-viewer-role' },
      rules: [{ apiGroups: ['cache.example.com'], resources: ['memcacheds'] }, { resources: ['memcacheds/status'] }],
    });
  });
});
