import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from '../../config/yaml.js';
import { runInit } from '../init/init.js';
import { PATHS } from './context.js';

const run = promisify(execFile);
/** A kubectl binary (e.g. the testenv's): without it the kustomize builds are skipped. */
const KUBECTL = process.env.KUBECTL;
const PROJECT = 'memcached-operator';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
  spec?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  [key: string]: any;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scaffold-config-'));
  const opts = { dir, domain: 'example.com', projectName: PROJECT, force: false };
  await runInit(opts, new AbortController().signal);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function objects(path: string): Promise<K8sObject[]> {
  const docs = parseAllDocuments(await readFile(join(dir, path), 'utf8'));
  return (Array.isArray(docs) ? docs : []).map((d) => d.toJS() as K8sObject);
}
function find(list: K8sObject[], kind: string, name: string): K8sObject {
  const found = list.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${list.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

describe('config/manager/manager.yaml', () => {
  it('runs the image entrypoint with leader election and the probe and metrics ports', async () => {
    const deployment = find(await objects(PATHS.managerDeployment), 'Deployment', 'controller-manager');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.command).toBeUndefined();
    expect(container.image).toBe('controller:latest');
    expect(container.args).toEqual([
      '--leader-elect',
      `--leader-election-id=${PROJECT}`,
      '--health-probe-bind-address=:8081',
      '--metrics-bind-address=:8443',
      '--metrics-secure',
      '--metrics-require-rbac',
    ]);
    expect(container.ports.map((p: { containerPort: number }) => p.containerPort)).toEqual([8443, 8081]);
    expect(container.livenessProbe).toEqual({
      httpGet: { path: '/healthz', port: 8081 },
      initialDelaySeconds: 15,
      periodSeconds: 20,
    });
    expect(container.readinessProbe).toEqual({
      httpGet: { path: '/readyz', port: 8081 },
      initialDelaySeconds: 5,
      periodSeconds: 10,
    });
    expect(pod.serviceAccountName).toBe('controller-manager');
    expect(deployment.spec.selector.matchLabels).toEqual({ 'control-plane': 'controller-manager' });
    expect(deployment.spec.template.metadata.labels).toEqual({ 'control-plane': 'controller-manager' });
  });

  it('is restricted, with a writable /tmp on a read-only root filesystem', async () => {
    const pod = find(await objects(PATHS.managerDeployment), 'Deployment', 'controller-manager').spec.template.spec;
    const container = pod.containers[0];
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
    expect(container.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(container.env).toEqual([{ name: 'TMPDIR', value: '/tmp' }]);
  });

  it('outlasts a helm command on termination and sizes resources for Node.js', async () => {
    const pod = find(await objects(PATHS.managerDeployment), 'Deployment', 'controller-manager').spec.template.spec;
    expect(pod.terminationGracePeriodSeconds).toBe(360);
    expect(pod.containers[0].resources).toEqual({
      limits: { cpu: '1', memory: '512Mi' },
      requests: { cpu: '50m', memory: '128Mi' },
    });
    const text = await readFile(join(dir, PATHS.managerDeployment), 'utf8');
    expect(text).toMatch(/#- name: WATCH_NAMESPACE/);
  });
});

describe('config/rbac', () => {
  it('lists every role file and binds each role to the controller-manager service account', async () => {
    const kustomization = parse(await readFile(join(dir, PATHS.rbacKustomization), 'utf8')) as { resources: string[] };
    const all = (await Promise.all(kustomization.resources.map((r) => objects(`config/rbac/${r}`)))).flat();
    expect(all.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ClusterRole/manager-extra-role',
      'ClusterRole/manager-role',
      'ClusterRole/metrics-auth-role',
      'ClusterRole/metrics-reader',
      'ClusterRoleBinding/manager-extra-rolebinding',
      'ClusterRoleBinding/manager-rolebinding',
      'ClusterRoleBinding/metrics-auth-rolebinding',
      'Role/leader-election-role',
      'RoleBinding/leader-election-rolebinding',
      'ServiceAccount/controller-manager',
    ]);
    for (const binding of all.filter((o) => o.kind.endsWith('Binding'))) {
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'controller-manager', namespace: 'system' }]);
    }
  });

  it('gives the manager only the base rules until create api adds the charts', async () => {
    const [role] = await objects(PATHS.managerRole);
    expect(role?.rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });

  it('scaffolds an empty role for hand-written rules, with an example of one', async () => {
    const [role] = await objects(PATHS.extraRole);
    expect(role?.rules).toEqual([]);
    const text = await readFile(join(dir, PATHS.extraRole), 'utf8');
    expect(text).toMatch(/never touch\s+# this file/);
    expect(text).toContain('# - apiGroups: ["networking.k8s.io"]');
  });

  it('lets the leader election Role use leases, configmaps and events', async () => {
    const [role] = await objects('config/rbac/leader_election_role.yaml');
    const crud = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: crud },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: crud },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });
});

describe('config/default', () => {
  it('deploys into <project>-system with the <project>- prefix and keeps prometheus and network policy optional', async () => {
    const text = await readFile(join(dir, PATHS.defaultKustomization), 'utf8');
    const kustomization = parse(text) as { namespace: string; namePrefix: string; resources: string[] };
    expect(kustomization.namespace).toBe(`${PROJECT}-system`);
    expect(kustomization.namePrefix).toBe(`${PROJECT}-`);
    expect(kustomization.resources).toEqual(['../crd', '../rbac', '../manager', 'metrics_service.yaml']);
    expect(text).toContain('\n#- ../prometheus\n');
    expect(text).toContain('\n#- ../network-policy\n');
  });

  it('serves metrics over HTTPS on 8443, RBAC-protected, through the metrics Service', async () => {
    const [service] = await objects('config/default/metrics_service.yaml');
    expect(service?.metadata.name).toBe('controller-manager-metrics-service');
    expect(service?.spec).toEqual({
      ports: [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: 8443 }],
      selector: { 'control-plane': 'controller-manager' },
    });
    const [monitor] = await objects('config/prometheus/monitor.yaml');
    expect(monitor?.spec.endpoints).toEqual([
      {
        path: '/metrics',
        port: 'https',
        scheme: 'https',
        bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
        tlsConfig: { insecureSkipVerify: true },
      },
    ]);
    const [policy] = await objects('config/network-policy/allow-metrics-traffic.yaml');
    expect(policy?.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }],
        ports: [{ port: 8443, protocol: 'TCP' }],
      },
    ]);
  });
});

describe('every kustomization', () => {
  const builds = [
    'default',
    'manager',
    'rbac',
    'prometheus',
    'grafana',
    'network-policy',
    'sharding',
    'crd',
    'samples',
    'manifests',
  ];

  it.skipIf(!KUBECTL).each(builds)(
    'config/%s builds with kubectl kustomize (skipped unless KUBECTL names a kubectl binary)',
    async (name) => {
      const { stdout } = await run(KUBECTL ?? 'kubectl', ['kustomize', join(dir, 'config', name)]);
      const docs = parseAllDocuments(stdout);
      expect((Array.isArray(docs) ? docs : []).flatMap((d) => d.errors)).toEqual([]);
    },
  );

  it.skipIf(!KUBECTL)(
    'config/default prefixes names and sets the namespace everywhere (skipped unless KUBECTL names a kubectl binary)',
    async () => {
      const { stdout } = await run(KUBECTL ?? 'kubectl', ['kustomize', join(dir, 'config/default')]);
      const docs = parseAllDocuments(stdout);
      const all = (Array.isArray(docs) ? docs : []).map((d) => d.toJS() as K8sObject);
      const ns = `${PROJECT}-system`;
      find(all, 'Namespace', ns);
      const deployment = find(all, 'Deployment', `${PROJECT}-controller-manager`);
      expect(deployment.metadata.namespace).toBe(ns);
      expect(deployment.spec.template.spec.serviceAccountName).toBe(`${PROJECT}-controller-manager`);
      expect(find(all, 'ServiceAccount', `${PROJECT}-controller-manager`).metadata.namespace).toBe(ns);
      expect(find(all, 'Service', `${PROJECT}-controller-manager-metrics-service`).metadata.namespace).toBe(ns);
      const binding = find(all, 'ClusterRoleBinding', `${PROJECT}-manager-rolebinding`);
      expect(binding.roleRef.name).toBe(`${PROJECT}-manager-role`);
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: `${PROJECT}-controller-manager`, namespace: ns },
      ]);
      expect(deployment.metadata.labels?.['app.kubernetes.io/name']).toBe(PROJECT);
      expect(deployment.spec.selector.matchLabels).toEqual({ 'control-plane': 'controller-manager' });
      expect(all.some((o) => o.metadata.namespace === 'system')).toBe(false);
    },
  );
});

describe('config/sharding', () => {
  it('turns the manager into a 3-replica StatefulSet with --shard-count=3 and POD_NAME', async () => {
    const [k] = await objects('config/sharding/kustomization.yaml');
    expect(k?.resources).toEqual(['../default']);
    const patch = k?.patches?.[0];
    expect(patch.target).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment', name: 'controller-manager' });
    expect(patch.options).toEqual({ allowKindChange: true });
    const ops = parse(patch.patch) as { op: string; path: string; value: unknown }[];
    expect(ops).toEqual([
      { op: 'replace', path: '/kind', value: 'StatefulSet' },
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/spec/podManagementPolicy', value: 'Parallel' },
      { op: 'add', path: '/spec/serviceName', value: `${PROJECT}-controller-manager-metrics-service` },
      { op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--shard-count=3' },
      {
        op: 'add',
        path: '/spec/template/spec/containers/0/env/-',
        value: { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      },
    ]);
  });

  it.skipIf(!KUBECTL)(
    'builds a StatefulSet and no Deployment (skipped unless KUBECTL names a kubectl binary)',
    async () => {
      const { stdout } = await run(KUBECTL ?? 'kubectl', ['kustomize', join(dir, 'config/sharding')]);
      const docs = parseAllDocuments(stdout);
      const all = (Array.isArray(docs) ? docs : []).map((d) => d.toJS() as K8sObject);
      const set = find(all, 'StatefulSet', `${PROJECT}-controller-manager`);
      expect(set.spec.replicas).toBe(3);
      expect(set.spec.template.spec.containers[0].args).toContain('--shard-count=3');
      expect(all.some((o) => o.kind === 'Deployment')).toBe(false);
    },
  );
});
