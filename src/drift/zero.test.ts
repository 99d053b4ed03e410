import { describe, expect, it } from 'vitest';
import { driftOf as diffsOf, REDACTED } from './compare.js';
import { coveredAsAbsent, withoutNulls } from './zero.js';

/** The diffs without their trails (compare.test.ts asserts those). */
const driftOf = (desired: Record<string, unknown>, live: Record<string, unknown>) =>
  diffsOf(desired, live).map(({ path, want, got }) => ({ path, want, got }));

type Obj = Record<string, unknown>;

const HELM_ANNOTATIONS = { 'meta.helm.sh/release-name': 'edge', 'meta.helm.sh/release-namespace': 'web' };

/** A Deployment as published charts render it: zero values, false and an empty annotations block. */
function renderedDeployment(): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'edge', annotations: null },
    spec: {
      replicas: 1,
      minReadySeconds: 0,
      template: {
        spec: {
          hostNetwork: false,
          containers: [
            {
              name: 'nginx-ingress',
              image: 'nginx:1.27',
              readinessProbe: { httpGet: { path: '/healthz', port: 10254 }, initialDelaySeconds: 0 },
              securityContext: { privileged: false, runAsNonRoot: false },
            },
          ],
        },
      },
    },
  };
}

/** What the API server stores for it: zero values omitted, defaults filled in, helm's annotations added. */
function liveDeployment(): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'edge', namespace: 'web', annotations: HELM_ANNOTATIONS, resourceVersion: '9' },
    spec: {
      replicas: 1,
      progressDeadlineSeconds: 600,
      template: {
        spec: {
          dnsPolicy: 'ClusterFirst',
          containers: [
            {
              name: 'nginx-ingress',
              image: 'nginx:1.27',
              imagePullPolicy: 'IfNotPresent',
              readinessProbe: {
                httpGet: { path: '/healthz', port: 10254, scheme: 'HTTP' },
                timeoutSeconds: 1,
                periodSeconds: 10,
                successThreshold: 1,
                failureThreshold: 3,
              },
              securityContext: {},
            },
          ],
        },
      },
    },
  };
}

const subject = (extra: Obj = {}) => ({ kind: 'ServiceAccount', name: 'edge', namespace: 'web', ...extra });
const binding = (kind: string, subjects: Obj[]) => ({
  kind,
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'edge' },
  subjects,
});
const nodePortService = (ports: Obj[]) => ({ kind: 'Service', spec: { type: 'NodePort', ports } });
const CONTAINER = 'spec.template.spec.containers[name=nginx-ingress]';

describe('driftOf, for values the server leaves out or fills in', () => {
  describe('when a published chart renders zero values, false, "" and empty blocks', () => {
    it('a rendered Deployment matches what the server stored for it', () => {
      expect(driftOf(renderedDeployment(), liveDeployment())).toEqual([]);
    });

    it('a rendered hostNetwork: false matches a live object without hostNetwork', () => {
      const desired = { spec: { template: { spec: { hostNetwork: false } } } };
      expect(driftOf(desired, { spec: { template: { spec: { dnsPolicy: 'ClusterFirst' } } } })).toEqual([]);
    });

    it('a rendered readinessProbe initialDelaySeconds: 0 matches a live probe without it', () => {
      const probe = (p: Obj) => ({
        spec: { template: { spec: { containers: [{ name: 'web', readinessProbe: p }] } } },
      });
      expect(driftOf(probe({ initialDelaySeconds: 0 }), probe({ periodSeconds: 10 }))).toEqual([]);
    });

    it('a rendered minReadySeconds: 0 matches a live Deployment without minReadySeconds', () => {
      expect(driftOf({ spec: { minReadySeconds: 0 } }, { spec: { replicas: 1 } })).toEqual([]);
    });

    it('a rendered empty nodePort (null) matches the port the server allocated', () => {
      const desired = nodePortService([
        { port: 80, name: 'http', nodePort: null },
        { port: 443, name: 'https', nodePort: null },
      ]);
      const live = nodePortService([
        { port: 80, name: 'http', nodePort: 31080, protocol: 'TCP', targetPort: 80 },
        { port: 443, name: 'https', nodePort: 31443, protocol: 'TCP', targetPort: 443 },
      ]);
      expect(driftOf(desired, live)).toEqual([]);
    });

    it.each(['RoleBinding', 'ClusterRoleBinding'])(
      'a rendered apiGroup: "" on a ServiceAccount subject matches a live %s subject without apiGroup',
      (kind) => {
        expect(driftOf(binding(kind, [subject({ apiGroup: '' })]), binding(kind, [subject()]))).toEqual([]);
      },
    );

    it("rendered empty metadata.annotations (null) match helm's annotations on the live object", () => {
      const desired = { kind: 'ConfigMap', metadata: { name: 'cfg', annotations: null } };
      expect(driftOf(desired, { metadata: { name: 'cfg', annotations: HELM_ANNOTATIONS } })).toEqual([]);
    });

    it('a rendered empty map or list matches a live object without the field', () => {
      const desired = { spec: { template: { spec: { securityContext: {}, imagePullSecrets: [], nodeSelector: {} } } } };
      expect(driftOf(desired, { spec: { template: { spec: {} } } })).toEqual([]);
    });

    it('a rendered map of zero values matches a live object without the map', () => {
      const desired = { spec: { template: { spec: { securityContext: { runAsNonRoot: false, fsGroup: 0 } } } } };
      expect(driftOf(desired, { spec: { template: {} } })).toEqual([]);
    });

    it('a rendered null matches whatever the live object holds (the repair leaves nulls out of its apply)', () => {
      expect(driftOf({ spec: { replicas: null, strategy: null } }, { spec: { replicas: 3 } })).toEqual([]);
    });

    it('a rendered null Secret value matches the live Secret, which it would not change', () => {
      const b64 = Buffer.from('x').toString('base64');
      expect(driftOf({ kind: 'Secret', stringData: { k: null }, data: { d: null } }, { data: { k: b64 } })).toEqual([]);
    });
  });

  describe('when the live object really drifted', () => {
    it('a rendered replicas: 0 against a live replicas: 3 is drift', () => {
      expect(driftOf({ spec: { replicas: 0 } }, { spec: { replicas: 3 } })).toEqual([
        { path: 'spec.replicas', want: 0, got: 3 },
      ]);
    });

    it('a rendered hostNetwork: false against a live hostNetwork: true is drift', () => {
      const live = liveDeployment();
      Object.assign((live.spec as { template: { spec: Obj } }).template.spec, { hostNetwork: true });
      expect(driftOf(renderedDeployment(), live)).toEqual([
        { path: 'spec.template.spec.hostNetwork', want: false, got: true },
      ]);
    });

    it('a rendered initialDelaySeconds: 0 against a live 30 is drift', () => {
      const live = liveDeployment();
      const [container] = (live.spec as { template: { spec: { containers: Obj[] } } }).template.spec.containers;
      Object.assign(container?.readinessProbe as Obj, { initialDelaySeconds: 30 });
      expect(driftOf(renderedDeployment(), live)).toEqual([
        { path: `${CONTAINER}.readinessProbe.initialDelaySeconds`, want: 0, got: 30 },
      ]);
    });

    it('a rendered apiGroup: "" against another live apiGroup is drift', () => {
      const live = binding('RoleBinding', [subject({ apiGroup: 'example.com' })]);
      expect(driftOf(binding('RoleBinding', [subject({ apiGroup: '' })]), live)).toEqual([
        { path: 'subjects[name=edge].apiGroup', want: '', got: 'example.com' },
      ]);
    });

    it('a rendered non-zero value that is absent live is drift', () => {
      expect(driftOf({ spec: { minReadySeconds: 5 } }, { spec: {} })).toEqual([
        { path: 'spec.minReadySeconds', want: 5, got: undefined },
      ]);
    });

    it('a rendered zero value against a live value of another type is drift', () => {
      expect(driftOf({ spec: { paused: false } }, { spec: { paused: 0 } })).toEqual([
        { path: 'spec.paused', want: false, got: 0 },
      ]);
    });

    it('a rendered empty value in a ConfigMap, a label or a selector must be there: deleting it is drift', () => {
      const desired = { kind: 'ConfigMap', metadata: { labels: { tier: '' } }, data: { empty: '' } };
      expect(driftOf(desired, { metadata: { labels: {} }, data: {} })).toEqual([
        { path: 'metadata.labels.tier', want: '', got: undefined },
        { path: 'data.empty', want: '', got: undefined },
      ]);
      expect(driftOf({ spec: { selector: { canary: '' } } }, { spec: { selector: {} } })).toHaveLength(1);
    });

    it('a rendered empty Secret value that was deleted is drift, without revealing it', () => {
      expect(driftOf({ kind: 'Secret', data: { k: '' } }, { data: {} })).toEqual([
        { path: 'data.k', want: REDACTED, got: undefined },
      ]);
    });
  });
});

describe('coveredAsAbsent', () => {
  it.each([
    ['null', null, 5],
    ['an empty map', {}, { a: 1 }],
    ['an empty list', [], [1]],
    ['0 where the field is absent', 0, undefined],
    ['false where the field is null', false, null],
    ['"" where the field is absent', '', undefined],
  ])('covers %s', (_, want, got) => {
    expect(coveredAsAbsent(want, got, ['spec', 'field'])).toBe(true);
  });

  it.each([
    ['0 against a live 3', 0, 3],
    ['false against a live true', false, true],
    ['a non-zero value', 1, undefined],
  ])('leaves %s to the comparison', (_, want, got) => {
    expect(coveredAsAbsent(want, got, ['spec', 'field'])).toBe(false);
  });

  it('does not cover an empty value of a free-form map entry', () => {
    expect(coveredAsAbsent('', undefined, ['metadata', 'labels', 'tier'])).toBe(false);
  });
});

describe('withoutNulls', () => {
  it('drops null map entries at any depth and keeps list positions and zero values', () => {
    const body = {
      metadata: { annotations: null },
      spec: { replicas: null, ports: [{ port: 80, nodePort: null }, null] },
    };
    expect(withoutNulls(body)).toEqual({ metadata: {}, spec: { ports: [{ port: 80 }, null] } });
    expect(withoutNulls({ spec: { hostNetwork: false, minReadySeconds: 0, apiGroup: '' } })).toEqual({
      spec: { hostNetwork: false, minReadySeconds: 0, apiGroup: '' },
    });
  });
});
