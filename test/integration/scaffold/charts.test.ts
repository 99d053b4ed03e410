// `create api` on charts shaped like published ones, with the project's own helm (the testenv helm v3) and the real
// API server: a values.schema.json that declares only some of the values gives a CRD that keeps every value of the
// chart's own sample under strict field validation; a Chart.yaml kubeVersion is met by the cluster's version or the
// built-in default, and a failing one names the version it needs and --kube-version.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTestNamespace, testKube } from '../../support/kube.js';
import { ROOT, runCleanups } from '../../support/operator.js';
import { newProject, type Project } from '../../support/project.js';

const rand = () => Math.random().toString(36).slice(2, 8);
const domain = `c${rand()}.example.com`;
const CHARTS = join(ROOT, 'test/fixtures/charts');
/** A KUBECONFIG that reaches no cluster: create api then renders for its built-in default version. */
const NO_CLUSTER = { KUBECONFIG: join(tmpdir(), `no-such-kubeconfig-${rand()}`) };

describe('create api on a chart whose values.schema.json leaves properties open', () => {
  const kube = testKube();
  const cleanups: (() => Promise<unknown>)[] = [];
  const group = `open.${domain}`;
  let project: Project;
  let ns: string;

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  it('writes a CRD that the API server serves', async () => {
    project = newProject('open-schema');
    cleanups.push(async () => project.remove());
    project.cli('init', `--domain=${domain}`, `--project-name=p${rand()}`);
    project.cli('create', 'api', `--helm-chart=${join(CHARTS, 'open-schema')}`, '--group=open');
    const crdFile = join('config/crd/bases', `${group}_openschemas.yaml`);
    project.kubectl('apply', '--server-side', '-f', crdFile);
    cleanups.push(async () => project.kubectl('delete', '--ignore-not-found', '-f', join(project.dir, crdFile)));
    project.kubectl('wait', '--for=condition=Established', '--timeout=60s', `crd/openschemas.${group}`);
    const [n, deleteNs] = await createTestNamespace(kube, 'open-schema');
    ns = n;
    cleanups.push(deleteNs);
  });

  it('accepts its own sample with strict field validation and keeps every value of it', async () => {
    const sampleFile = join(project.dir, 'config/samples', `open_v1alpha1_openschema.yaml`);
    const sample = parse(readFileSync(sampleFile, 'utf8')) as { spec: Record<string, unknown> };
    expect(sample.spec).toMatchObject({ image: { tag: '1.36' }, primary: { annotations: { team: 'storage' } } });
    // kubectl create validates strictly by default; say so anyway: an unknown field would fail the create.
    project.kubectl('create', '--validate=strict', '-n', ns, '-f', sampleFile);
    const stored = (await kube.custom.getNamespacedCustomObject({
      group,
      version: 'v1alpha1',
      plural: 'openschemas',
      namespace: ns,
      name: 'openschema-sample',
    })) as { spec: unknown };
    expect(stored.spec).toEqual(sample.spec);
  });

  it('still closes what the schema closes (additionalProperties: false) and validates what it declares', async () => {
    const create = (name: string, spec: unknown) =>
      kube.custom
        .createNamespacedCustomObject({
          group,
          version: 'v1alpha1',
          plural: 'openschemas',
          namespace: ns,
          fieldValidation: 'Strict',
          body: { apiVersion: `${group}/v1alpha1`, kind: 'OpenSchema', metadata: { name }, spec },
        })
        .then(
          () => undefined,
          (e: unknown) => {
            const { code, body } = e as { code?: number; body?: string };
            return { code, message: String((JSON.parse(String(body)) as { message?: string }).message) };
          },
        );
    const closed = await create(`closed-${rand()}`, { auth: { enabled: true, password: 'x' } });
    expect(closed?.code).toBe(400);
    expect(closed?.message).toContain('strict decoding error: unknown field "spec.auth.password"');
    const invalid = await create(`invalid-${rand()}`, { primary: { count: 0, annotations: { a: 'b' } } });
    expect(invalid?.code).toBe(422);
    expect(invalid?.message).toContain('spec.primary.count');
    expect(await create(`open-${rand()}`, { image: { digest: 'sha256:0' }, anything: { at: ['all'] } })).toBe(
      undefined,
    );
  });
});

describe('create api on a chart whose Chart.yaml requires a Kubernetes version', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await runCleanups(cleanups);
  });

  const initProject = () => {
    const project = newProject('kube-version');
    cleanups.push(async () => project.remove());
    project.cli('init', `--domain=${domain}`, `--project-name=p${rand()}`);
    return project;
  };

  it('succeeds with the project helm for kubeVersion >=1.21.0-0, against the cluster and without one', () => {
    const chart = join(CHARTS, 'kube-version');
    const withCluster = initProject();
    expect(withCluster.cli('create', 'api', `--helm-chart=${chart}`, '--group=kv')).toContain('created KubeVersion');
    const offline = initProject();
    expect(offline.cliWithEnv(NO_CLUSTER, 'create', 'api', `--helm-chart=${chart}`, '--group=kv')).toContain(
      'created KubeVersion',
    );
  });

  it("names the version a chart needs and the cluster's it was rendered for; --kube-version renders it", () => {
    const project = initProject();
    const src = mkdtempSync(join(tmpdir(), 'old-chart-'));
    cleanups.push(async () => rmSync(src, { recursive: true, force: true }));
    const chart = join(src, 'kube-version');
    cpSync(join(CHARTS, 'kube-version'), chart, { recursive: true });
    const meta = readFileSync(join(chart, 'Chart.yaml'), 'utf8');
    writeFileSync(join(chart, 'Chart.yaml'), meta.replace('>=1.21.0-0', '<1.30.0-0'));
    let message = '';
    try {
      project.cli('create', 'api', `--helm-chart=${chart}`, '--group=kv');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/the chart needs Kubernetes <1\.30\.0-0 \(kubeVersion in its Chart\.yaml\)/);
    expect(message).toMatch(/rendered for Kubernetes v1\.\d+\.\d+ \(the version of the cluster KUBECONFIG points at\)/);
    expect(message).toContain('Pass --kube-version=');
    expect(project.cli('create', 'api', `--helm-chart=${chart}`, '--group=kv', '--kube-version=1.29')).toContain(
      'created KubeVersion',
    );
  });
});
