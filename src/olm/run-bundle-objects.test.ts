// The pure parts of run bundle and cleanup PACKAGE: --install-mode and the OperatorGroup targets it gives (operator-sdk's
// rules), the registry pod's name, spec and what its render container reports, and when waiting for it must stop.
// The commands themselves run against OLM on the real node (test/node/olm.test.ts).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { ownedCrds, parseInstallMode, subscriptionNameFor, targetNamespaces } from './objects.js';
import { podNameFor, registryPod, registryPodWaiting, renderResult } from './registry-pod.js';

const ALL = ['AllNamespaces', 'OwnNamespace', 'SingleNamespace', 'MultiNamespace'];

describe('install modes', () => {
  it("parses operator-sdk's --install-mode forms and refuses the rest", () => {
    expect(parseInstallMode('AllNamespaces')).toEqual({ type: 'AllNamespaces', targetNamespaces: [] });
    expect(parseInstallMode('MultiNamespace=a,b')).toEqual({ type: 'MultiNamespace', targetNamespaces: ['a', 'b'] });
    expect(() => parseInstallMode('SingleNamespace')).toThrow(/needs its target namespace/);
    expect(() => parseInstallMode('SingleNamespace=a,b')).toThrow(/takes one namespace/);
    expect(() => parseInstallMode('OwnNamespace=a')).toThrow(/takes no target namespaces/);
    expect(() => parseInstallMode('Everywhere')).toThrow(/is not one of/);
  });

  it('targets all namespaces, then its own, as the CSV supports, narrowed by --install-mode', () => {
    expect(targetNamespaces(ALL, 'ns', 'op.v1')).toEqual([]);
    expect(targetNamespaces(['OwnNamespace', 'SingleNamespace'], 'ns', 'op.v1')).toEqual(['ns']);
    expect(targetNamespaces(ALL, 'ns', 'op.v1', parseInstallMode('OwnNamespace'))).toEqual(['ns']);
    expect(targetNamespaces(ALL, 'ns', 'op.v1', parseInstallMode('MultiNamespace=a,b'))).toEqual(['a', 'b']);
    expect(() => targetNamespaces(['OwnNamespace'], 'ns', 'op.v1', parseInstallMode('AllNamespaces'))).toThrow(
      /does not support install mode AllNamespaces/,
    );
    expect(() => targetNamespaces(ALL, 'ns', 'op.v1', parseInstallMode('SingleNamespace=ns'))).toThrow(
      /use install mode OwnNamespace/,
    );
    expect(() => targetNamespaces(['SingleNamespace'], 'ns', 'op.v1')).toThrow(/pass --install-mode/);
    expect(() => targetNamespaces([], 'ns', 'op.v1')).toThrow(/supports no install mode/);
  });
});

describe('names and owned CRDs', () => {
  it("names the pod after the bundle image and the subscription after the CSV, as operator-sdk's", () => {
    expect(podNameFor('10.77.0.1:5000/team/op-bundle:v0.0.1')).toBe('10-77-0-1-5000-team-op-bundle-v0-0-1');
    expect(podNameFor(`host/${'x'.repeat(80)}:v1`)).toHaveLength(63);
    expect(subscriptionNameFor('op.v0.0.1')).toBe('op-v0-0-1-sub');
  });

  it("lists a CSV's owned CRDs once each", () => {
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'op.v1' },
      spec: { customresourcedefinitions: { owned: [{ name: 'a.x.io' }, { name: 'a.x.io' }, { name: 'b.x.io' }] } },
    };
    expect(ownedCrds(csv)).toEqual(['a.x.io', 'b.x.io']);
  });
});

describe('the registry pod', () => {
  const spec = {
    namespace: 'ns',
    bundles: ['r/op-bundle:v0.0.1', 'r/op-bundle:v0.0.2'],
    indexImage: 'r/opm:v1',
    pullPolicy: 'IfNotPresent' as const,
    renderFlags: ['--use-http'],
    securityContext: 'restricted' as const,
  };
  const pod = registryPod(spec);
  const statusOf = (status: object): KubeObject => ({ ...pod, status });
  const rendered = {
    name: 'render',
    state: { terminated: { exitCode: 0, message: 'package=op\nhead=op.v0.0.2\n' } },
  };

  it('renders the bundles, oldest first, in an init container and serves them on :50051', () => {
    expect(pod.metadata.name).toBe('r-op-bundle-v0-0-2');
    const s = pod.spec as { initContainers: { env: { name: string; value: string }[] }[]; containers: object[] };
    expect(s.initContainers[0]?.env).toContainEqual({
      name: 'BUNDLES',
      value: 'r/op-bundle:v0.0.1 r/op-bundle:v0.0.2',
    });
    expect(s.initContainers[0]?.env).toContainEqual({ name: 'RENDER_FLAGS', value: '--use-http' });
    expect(s.containers[0]).toMatchObject({
      command: ['opm', 'serve', '/configs', '-p', '50051'],
      readinessProbe: { grpc: { port: 50051 } },
      securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false },
    });
    expect(registryPod({ ...spec, securityContext: 'legacy' }).spec).not.toHaveProperty('securityContext');
  });

  it('is served once Ready with an address and a render result; says how far it got before', () => {
    expect(registryPodWaiting(undefined)).toBe('not found');
    expect(registryPodWaiting(statusOf({ phase: 'Pending' }))).toBe('phase Pending, not Ready');
    const ready = statusOf({
      phase: 'Running',
      podIP: '10.77.0.9',
      conditions: [{ type: 'Ready', status: 'True' }],
      initContainerStatuses: [rendered],
    });
    expect(registryPodWaiting(ready)).toBeUndefined();
    expect(renderResult(ready)).toEqual({ package: 'op', head: 'op.v0.0.2' });
  });

  it('stops waiting when it cannot serve: the render failed, an image cannot be pulled', () => {
    const failed = { name: 'render', state: { terminated: { exitCode: 1, message: 'bundles of two packages' } } };
    expect(() => registryPodWaiting(statusOf({ initContainerStatuses: [failed] }))).toThrow(
      /container render exited with 1: bundles of two packages/,
    );
    const pull = { name: 'render', state: { waiting: { reason: 'ImagePullBackOff', message: 'no such image' } } };
    expect(() => registryPodWaiting(statusOf({ initContainerStatuses: [pull] }))).toThrow(
      /ImagePullBackOff: no such image/,
    );
  });
});
