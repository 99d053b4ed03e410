// The manager role follows the values users set: for a chart whose Ingress is off by default, the operator running as
// a ServiceAccount bound to the generated roles is refused the Ingress a CR turns on, and says what to grant and where;
// once the sample turns the Ingress on and `generate rbac` runs again, the same operator installs it. The regeneration
// keeps a rule written by hand into role.yaml (with a warning) and leaves the hand-written extra_role.yaml as it was.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import {
  crClient,
  type OperatorProcess,
  ROOT,
  runCleanups,
  startOperator,
  type TestKind,
} from '../../support/operator.js';
import { newProject, type Project } from '../../support/project.js';
import { boundServiceAccount } from '../../support/service-account.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
const POLL = { timeout: 90_000, interval: 250 } as const;
const CHART_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const HAND_WRITTEN_ROLE: Rule = { apiGroups: [''], resources: ['nodes'], verbs: ['list'] };
const HAND_WRITTEN_EXTRA: Rule = { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] };
const rand = () => Math.random().toString(36).slice(2, 8);

describe('generate rbac over a sample that turns an optional Ingress on', { timeout: 240_000 }, () => {
  let kube: TestKube;
  let project: Project;
  let kind: TestKind;
  let ns: string;
  let op: OperatorProcess;
  let sampleFile: string;
  let initOutput: string;
  const role = `mgr-${rand()}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  const rulesOf = (file: string) => (parse(readFileSync(join(project.dir, file), 'utf8')) as { rules: Rule[] }).rules;
  /** The ServiceAccount's one ClusterRole: the generated role's rules plus the extra role's, as make deploy binds them. */
  const grantProjectRoles = () =>
    kube.rbac.replaceClusterRole({
      name: role,
      body: {
        metadata: { name: role },
        rules: [...rulesOf('config/rbac/role.yaml'), ...rulesOf('config/rbac/extra_role.yaml')],
      },
    });

  beforeAll(async () => {
    kube = testKube();
    project = newProject('rbac-values');
    cleanups.push(async () => project.remove());
    const domain = `v${rand()}.example.com`;
    initOutput = project.cli(
      'init',
      `--domain=${domain}`,
      `--project-name=rv-${rand()}`,
      `--helm-chart=${join(ROOT, 'test/fixtures/charts/optional-ingress')}`,
      '--group=web',
      '--kind=Site',
    );
    kind = { group: `web.${domain}`, version: 'v1alpha1', kind: 'Site', plural: 'sites' } as TestKind;
    const crdFile = join(project.dir, 'config/crd/bases', `${kind.group}_sites.yaml`);
    project.kubectl('apply', '--server-side', '-f', crdFile);
    cleanups.push(async () => project.kubectl('delete', '--ignore-not-found', '-f', crdFile));
    project.kubectl('wait', '--for=condition=Established', '--timeout=60s', `crd/sites.${kind.group}`);
    const samples = readdirSync(join(project.dir, 'config/samples')).filter((f) => f !== 'kustomization.yaml');
    sampleFile = join('config/samples', samples[0] ?? 'none');
    const [n, deleteNs] = await createTestNamespace(kube, 'rbac-values');
    ns = n;
    cleanups.push(deleteNs);
    const account = { role, namespace: ns, serviceAccount: 'manager', dir: project.dir };
    const kubeconfig = await boundServiceAccount(kube, account, cleanups);
    await grantProjectRoles();
    op = startOperator({
      watches: project.watches(),
      env: { WATCH_NAMESPACE: ns, KUBECONFIG: kubeconfig },
      args: ['--zap-log-level=debug'],
    });
    cleanups.push(() => op.stop());
  });

  afterAll(async () => {
    const crs = crClient(kube, kind, ns);
    await crs.delete('site').catch(() => undefined);
    await vi.waitFor(async () => expect(await isGone(() => crs.get('site'))).toBe(true), POLL);
    await runCleanups(cleanups);
  });

  it('generates, from the default values alone, exact verbs on the ConfigMap and no rule for the Ingress, which it names', () => {
    expect(rulesOf('config/rbac/role.yaml').filter((r) => r.resources.includes('ingresses'))).toEqual([]);
    const configmaps = rulesOf('config/rbac/role.yaml').find(
      (r) => r.apiGroups.includes('') && r.resources.includes('configmaps'),
    );
    expect(configmaps?.verbs).toEqual(CHART_VERBS);
    expect(rulesOf('config/rbac/extra_role.yaml')).toEqual([]);
    expect(initOutput).toMatch(/warning: charts\/site: .*also declare Ingress, which CRs can enable/);
  });

  it('is refused the Ingress a CR turns on, and the condition names the verb, the resource and the file', async () => {
    const crs = crClient(kube, kind, ns);
    await crs.create('site', { message: 'hi', ingress: { enabled: true, host: 'site.example.com' } });
    await vi.waitFor(async () => {
      const failed = await crs.condition('site', 'ReleaseFailed');
      expect(failed?.status).toBe('True');
      expect(failed?.message).toMatch(
        new RegExp(
          `system:serviceaccount:${ns}:manager may not [a-z]+ ingresses\\.networking\\.k8s\\.io: grant it in ` +
            'config/rbac/extra_role\\.yaml \\(apiGroups: \\["networking\\.k8s\\.io"\\], resources: \\["ingresses"\\]',
        ),
      );
    }, POLL);
  });

  it('regenerates with the Ingress once the sample turns it on, keeping the hand-written rules', () => {
    const sample = parse(readFileSync(join(project.dir, sampleFile), 'utf8')) as { spec: Record<string, unknown> };
    writeFileSync(
      join(project.dir, sampleFile),
      readFileSync(join(project.dir, sampleFile), 'utf8').replace(
        /(\n {2}ingress:[\s\S]*?\n {4}enabled:) false/,
        '$1 true',
      ),
    );
    expect((parse(readFileSync(join(project.dir, sampleFile), 'utf8')) as typeof sample).spec.ingress).toMatchObject({
      enabled: true,
    });
    const roleText = readFileSync(join(project.dir, 'config/rbac/role.yaml'), 'utf8');
    writeFileSync(
      join(project.dir, 'config/rbac/role.yaml'),
      `${roleText.trimEnd()}\n- apiGroups: [""]\n  resources: [nodes]\n  verbs: [list]\n`,
    );
    const extraText = readFileSync(join(project.dir, 'config/rbac/extra_role.yaml'), 'utf8').replace(
      'rules: []',
      'rules:\n- apiGroups: [""]\n  resources: [namespaces]\n  verbs: [get]',
    );
    writeFileSync(join(project.dir, 'config/rbac/extra_role.yaml'), extraText);

    const out = project.cli('generate', 'rbac');
    expect(out).toMatch(/warning: config\/rbac\/role\.yaml: kept a rule .*\(list on nodes\)/);
    expect(rulesOf('config/rbac/role.yaml')).toContainEqual({
      apiGroups: ['networking.k8s.io'],
      resources: ['ingresses'],
      verbs: CHART_VERBS,
    });
    expect(rulesOf('config/rbac/role.yaml')).toContainEqual(HAND_WRITTEN_ROLE);
    expect(readFileSync(join(project.dir, 'config/rbac/extra_role.yaml'), 'utf8')).toBe(extraText);
    expect(rulesOf('config/rbac/extra_role.yaml')).toEqual([HAND_WRITTEN_EXTRA]);
  });

  it('installs the Ingress as the same ServiceAccount once bound to the regenerated roles', async () => {
    await grantProjectRoles();
    const crs = crClient(kube, kind, ns);
    await vi.waitFor(async () => {
      expect((await crs.condition('site', 'Deployed'))?.status).toBe('True');
      expect((await crs.condition('site', 'ReleaseFailed'))?.status).not.toBe('True');
    }, POLL);
    const ingress = JSON.parse(project.kubectl('get', 'ingress', 'site-site', '-n', ns, '-o', 'json')) as {
      spec: { rules: { host: string }[] };
    };
    expect(ingress.spec.rules[0]?.host).toBe('site.example.com');
  });
});
