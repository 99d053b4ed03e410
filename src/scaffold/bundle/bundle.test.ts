import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from '../../config/yaml.js';
import { BundleError, type BundleInput, generateBundle } from './bundle.js';
import { compareKubeVersions, displayNameOf } from './csv.js';

// biome-ignore lint/suspicious/noExplicitAny: tests reach into generated manifests by path
type Obj = Record<string, any>;

const FIXTURE = new URL('../../../test/fixtures/bundle/manifests.yaml', import.meta.url);
function fixtureObjects(): Record<string, unknown>[] {
  const docs = parseAllDocuments(readFileSync(FIXTURE, 'utf8'));
  return Array.isArray(docs) ? docs.map((d) => d.toJS() as Record<string, unknown>) : [];
}

const IMAGE = 'quay.io/example/nginx-operator:v0.1.0';
const input = (over: Partial<BundleInput> = {}): BundleInput => ({
  objects: fixtureObjects(),
  packageName: 'nginx-operator',
  version: '0.1.0',
  image: IMAGE,
  ...over,
});
const CSV_PATH = 'bundle/manifests/nginx-operator.clusterserviceversion.yaml';
const csvOf = (files: Record<string, string>) => parse(files[CSV_PATH] ?? '') as Obj;

describe('generateBundle', () => {
  it('writes the CSV, the CRD, the objects OLM does not create, annotations.yaml and bundle.Dockerfile', () => {
    const { files, warnings } = generateBundle(input());
    expect(Object.keys(files).sort()).toEqual([
      'bundle.Dockerfile',
      'bundle/manifests/demo.example.com_nginxes.yaml',
      'bundle/manifests/nginx-operator-controller-manager-metrics-service_v1_service.yaml',
      'bundle/manifests/nginx-operator-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      'bundle/manifests/nginx-operator-nginx-editor-role_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      CSV_PATH,
      'bundle/metadata/annotations.yaml',
    ]);
    expect(warnings).toEqual([]);
  });

  it('names the CSV <package>.v<version> and annotates it with the samples, capabilities, builder and image', () => {
    const csv = csvOf(generateBundle(input()).files);
    expect(csv).toMatchObject({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' });
    expect(csv.metadata.name).toBe('nginx-operator.v0.1.0');
    const a = csv.metadata.annotations;
    expect(JSON.parse(a['alm-examples'])).toEqual([
      {
        apiVersion: 'demo.example.com/v1alpha1',
        kind: 'Nginx',
        metadata: { name: 'nginx-sample' },
        spec: { replicaCount: 2, service: { port: 8080 } },
      },
    ]);
    expect(a).toMatchObject({
      capabilities: 'Basic Install',
      'operators.operatorframework.io/builder': 'helm-operator-ts',
      containerImage: IMAGE,
    });
    expect(csv.spec).toMatchObject({
      version: '0.1.0',
      displayName: 'Nginx Operator',
      maturity: 'alpha',
      minKubeVersion: '1.27.0',
      provider: { name: 'nginx-operator' },
    });
    expect(csv.spec.installModes).toEqual(
      ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: true })),
    );
    expect(csv.spec.customresourcedefinitions.owned).toEqual([
      {
        name: 'nginxes.demo.example.com',
        version: 'v1alpha1',
        kind: 'Nginx',
        displayName: 'Nginx',
        description: 'Nginx is the Schema for the nginxes API',
      },
    ]);
  });

  it('installs the Deployment with the given image and WATCH_NAMESPACE from the OperatorGroup targets', () => {
    const install = csvOf(generateBundle(input()).files).spec.install;
    expect(install.strategy).toBe('deployment');
    expect(install.spec.deployments).toHaveLength(1);
    const [dep] = install.spec.deployments;
    expect(dep.name).toBe('nginx-operator-controller-manager');
    expect(dep.label).toEqual({ 'app.kubernetes.io/name': 'nginx-operator', 'control-plane': 'controller-manager' });
    const [manager] = dep.spec.template.spec.containers;
    expect(manager.image).toBe(IMAGE);
    expect(manager.env).toEqual([
      {
        name: 'WATCH_NAMESPACE',
        valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } },
      },
    ]);
    expect(dep.spec.template.spec.serviceAccountName).toBe('nginx-operator-controller-manager');
    expect(dep.spec.template.spec.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
  });

  it('turns the roles bound to the Deployment’s ServiceAccount into permissions and clusterPermissions', () => {
    const objects = fixtureObjects();
    const rules = (name: string) => objects.find((o) => (o.metadata as Obj).name === name)?.rules as unknown[];
    const spec = csvOf(generateBundle(input()).files).spec.install.spec;
    expect(spec.clusterPermissions).toEqual([
      {
        serviceAccountName: 'nginx-operator-controller-manager',
        rules: [...rules('nginx-operator-manager-role'), ...rules('nginx-operator-metrics-auth-role')],
      },
    ]);
    expect(spec.permissions).toEqual([
      { serviceAccountName: 'nginx-operator-controller-manager', rules: rules('nginx-operator-leader-election-role') },
    ]);
  });

  it('keeps a binding that also names other subjects (ours removed) and maps a ClusterRole bound by a RoleBinding to permissions', () => {
    const objects = [
      ...fixtureObjects(),
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'shared-view', namespace: 'nginx-operator-system' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'nginx-operator-nginx-editor-role',
        },
        subjects: [
          { kind: 'ServiceAccount', name: 'nginx-operator-controller-manager', namespace: 'nginx-operator-system' },
          { kind: 'Group', name: 'auditors', apiGroup: 'rbac.authorization.k8s.io' },
        ],
      },
    ];
    const { files } = generateBundle(input({ objects }));
    const binding = parse(
      files['bundle/manifests/shared-view_rbac.authorization.k8s.io_v1_rolebinding.yaml'] ?? '',
    ) as Obj;
    expect(binding.subjects).toEqual([{ kind: 'Group', name: 'auditors', apiGroup: 'rbac.authorization.k8s.io' }]);
    expect(binding.metadata).toEqual({ name: 'shared-view' });
    const perms = csvOf(files).spec.install.spec.permissions[0].rules;
    expect(perms).toContainEqual({
      apiGroups: ['demo.example.com'],
      resources: ['nginxes'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    });
    expect(files).not.toHaveProperty(
      'bundle/manifests/nginx-operator-nginx-editor-role_rbac.authorization.k8s.io_v1_clusterrole.yaml',
    );
  });

  it('strips namespace and status from plain manifests, and the CRD keeps its schema', () => {
    const { files } = generateBundle(input());
    const svc = parse(
      files['bundle/manifests/nginx-operator-controller-manager-metrics-service_v1_service.yaml'] ?? '',
    ) as Obj;
    expect(svc.metadata).toEqual({
      labels: { 'control-plane': 'controller-manager' },
      name: 'nginx-operator-controller-manager-metrics-service',
    });
    const crd = parse(files['bundle/manifests/demo.example.com_nginxes.yaml'] ?? '') as Obj;
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('writes the same annotations to annotations.yaml and as bundle.Dockerfile labels', () => {
    const { files } = generateBundle(input({ channels: ['alpha', 'stable'], defaultChannel: 'stable' }));
    const annotations = (parse(files['bundle/metadata/annotations.yaml'] ?? '') as Obj).annotations;
    expect(annotations).toMatchObject({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'nginx-operator',
      'operators.operatorframework.io.bundle.channels.v1': 'alpha,stable',
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    });
    const docker = files['bundle.Dockerfile'] ?? '';
    const labels = Object.fromEntries([...docker.matchAll(/^LABEL (\S+?)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(labels).toEqual(annotations);
    expect(docker).toMatch(/^FROM scratch$/m);
    expect(docker).toContain('COPY bundle/manifests /manifests/\nCOPY bundle/metadata /metadata/\n');
  });

  it('defaults to the alpha channel', () => {
    const annotations = (parse(generateBundle(input()).files['bundle/metadata/annotations.yaml'] ?? '') as Obj)
      .annotations;
    expect(annotations['operators.operatorframework.io.bundle.channels.v1']).toBe('alpha');
    expect(annotations['operators.operatorframework.io.bundle.channel.default.v1']).toBe('alpha');
  });

  it('leaves out, with a warning, objects of kinds OLM does not accept in a bundle', () => {
    const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: {} };
    const { files, warnings } = generateBundle(input({ objects: [...fixtureObjects(), ingress] }));
    expect(warnings).toEqual(['left out Ingress web: OLM does not accept kind Ingress in a registry+v1 bundle']);
    expect(Object.keys(files).some((f) => f.includes('ingress'))).toBe(false);
  });

  it('is deterministic and does not change its input', () => {
    const objects = fixtureObjects();
    const before = structuredClone(objects);
    expect(generateBundle(input({ objects })).files).toEqual(generateBundle(input({ objects })).files);
    expect(objects).toEqual(before);
  });

  it('keeps YAML 1.1 words as strings', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'flags' },
      data: { a: 'on', b: 'yes', c: '0755' },
    };
    const { files } = generateBundle(input({ objects: [...fixtureObjects(), cm] }));
    const text = files['bundle/manifests/flags_v1_configmap.yaml'] ?? '';
    expect(text).toContain('a: "on"');
    expect((parse(text) as Obj).data).toEqual({ a: 'on', b: 'yes', c: '0755' });
  });

  it.each([
    [{ version: 'v0.1.0' }, /version "v0.1.0" is not semver/],
    [{ packageName: 'Nginx_Operator' }, /package name "Nginx_Operator" is not a DNS-1123 label/],
    [{ channels: ['alpha'], defaultChannel: 'stable' }, /default channel "stable" is not one of the channels "alpha"/],
    [{ objects: [] }, /hold no Deployment/],
    [{ objects: [{ kind: 'Service' }] }, /object #1 of the manifests has no apiVersion, kind or metadata.name/],
  ] as [Partial<BundleInput>, RegExp][])('refuses bad input %#', (over, message) => {
    expect(() => generateBundle(input(over))).toThrow(message);
    expect(() => generateBundle(input(over))).toThrow(BundleError);
  });
});

describe('bundle naming helpers', () => {
  it('sorts Kubernetes versions newest first', () => {
    const versions = ['v1alpha1', 'v1', 'foo', 'v2beta1', 'v1beta2', 'v2', 'v1beta1', 'v11alpha2'];
    expect(versions.sort(compareKubeVersions)).toEqual([
      'v2',
      'v1',
      'v2beta1',
      'v1beta2',
      'v1beta1',
      'v11alpha2',
      'v1alpha1',
      'foo',
    ]);
  });

  it('title-cases kinds and package names', () => {
    expect(displayNameOf('MemcachedBackup')).toBe('Memcached Backup');
    expect(displayNameOf('nginx-operator')).toBe('Nginx Operator');
  });
});
