import { describe, expect, it } from 'vitest';
import { driftOf as diffsOf, REDACTED, valueAt } from './compare.js';

type Obj = Record<string, unknown>;
/** A diff as these tests assert it: its trail is asserted on its own (see 'trails' below). */
type DriftDiff = { path: string; want: unknown; got: unknown };

const driftOf = (desired: Obj, live: Obj, limit?: number): DriftDiff[] =>
  diffsOf(desired, live, limit).map(({ path, want, got }) => ({ path, want, got }));

const clone = <T>(v: T): T => structuredClone(v);

const ENV = [{ name: 'MODE', value: 'prod' }];
const LIMITS = { limits: { cpu: '500m', memory: '1Gi' } };
const SIDECAR = { name: 'sidecar', image: 'envoy:1.30' };

function deployment(): Obj {
  const web = { name: 'web', image: 'nginx:1.27', args: ['--port', '8080'], env: ENV };
  const containers = [{ ...web, ports: [{ containerPort: 8080 }], resources: { ...LIMITS, requests: { cpu: 0.25 } } }];
  return clone({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'apps', labels: { app: 'web' } },
    spec: { replicas: 2, template: { spec: { containers: [...containers, SIDECAR] } } },
  });
}

/** What the API server returns for `deployment()`: defaults, status and server metadata added. */
function liveDeployment(): Obj {
  const live = deployment();
  live.metadata = { ...(live.metadata as Obj), uid: 'u-1', resourceVersion: '42', generation: 3, managedFields: [] };
  live.status = { readyReplicas: 2 };
  const [web] = containersOf(live);
  Object.assign(web ?? {}, { imagePullPolicy: 'IfNotPresent', resources: { ...LIMITS, requests: { cpu: '250m' } } });
  return live;
}

function containersOf(obj: Obj): Obj[] {
  return (obj.spec as { template: { spec: { containers: Obj[] } } }).template.spec.containers;
}

/** The drift of `deployment()` from its live form after `edit`, which gets the live object and its web container. */
function driftAfter(edit: (live: Obj, web: Obj, containers: Obj[]) => void): DriftDiff[] {
  const live = liveDeployment();
  const containers = containersOf(live);
  edit(live, containers[0] ?? {}, containers);
  return driftOf(deployment(), live);
}

const WEB = 'spec.template.spec.containers[name=web]';

describe('driftOf', () => {
  describe('when the live object is what the server made of the desired one', () => {
    it('reports nothing', () => {
      expect(driftAfter(() => {})).toEqual([]);
    });

    it('ignores status, server metadata, namespace, apiVersion and kind in desired', () => {
      const desired: Obj = { ...deployment(), apiVersion: 'apps/v2', status: { readyReplicas: 9 } };
      desired.metadata = { ...(desired.metadata as Obj), uid: 'x', namespace: 'other', generation: 7 };
      expect(driftOf(desired, liveDeployment())).toEqual([]);
    });
  });

  type Edit = (live: Obj, web: Obj, containers: Obj[]) => unknown;
  const ANNOTATED: Edit = (live) => Object.assign(live.metadata as Obj, { annotations: { revision: '4' } });
  const RELABELLED: Edit = (live) => Object.assign(live.metadata as Obj, { labels: { app: 'web', team: 'pay' } });

  describe.each<[string, string, Edit, DriftDiff[]]>([
    [
      'someone scaled the Deployment',
      'reports spec.replicas',
      (live) => Object.assign(live.spec as Obj, { replicas: 5 }),
      [{ path: 'spec.replicas', want: 2, got: 5 }],
    ],
    ['another controller added an annotation', 'is not drift', ANNOTATED, []],
    ['someone added a label', 'is not drift', RELABELLED, []],
    [
      'someone changed the image of a container',
      'reports it under the container keyed by name',
      (_, web) => Object.assign(web, { image: 'nginx:latest' }),
      [{ path: `${WEB}.image`, want: 'nginx:1.27', got: 'nginx:latest' }],
    ],
    [
      'the containers were reordered and one injected',
      'is not drift',
      (_, __, containers) => containers.reverse().push({ name: 'istio-proxy' }),
      [],
    ],
    [
      'a desired container is missing',
      'reports the whole container',
      (_, __, containers) => containers.pop(),
      [{ path: 'spec.template.spec.containers[name=sidecar]', want: SIDECAR, got: undefined }],
    ],
    [
      'someone added an env var to a container',
      'is not drift',
      (_, web) => Object.assign(web, { env: [{ name: 'DEBUG', value: '1' }, ...ENV] }),
      [],
    ],
    [
      'a desired env var has another value',
      'reports it keyed by name',
      (_, web) => Object.assign(web, { env: [{ name: 'MODE', value: 'dev' }] }),
      [{ path: `${WEB}.env[name=MODE].value`, want: 'prod', got: 'dev' }],
    ],
    [
      'an element of the container args (an atomic list) changed',
      'reports the element',
      (_, web) => Object.assign(web, { args: ['--port', '9090'] }),
      [{ path: `${WEB}.args[1]`, want: '8080', got: '9090' }],
    ],
    [
      'an arg was added',
      'reports the whole list',
      (_, web) => Object.assign(web, { args: ['--port', '8080', '-v'] }),
      [{ path: `${WEB}.args`, want: ['--port', '8080'], got: ['--port', '8080', '-v'] }],
    ],
    [
      'someone raised a CPU request',
      'reports the quantity',
      (_, web) => Object.assign(web, { resources: { ...LIMITS, requests: { cpu: '1' } } }),
      [{ path: `${WEB}.resources.requests.cpu`, want: 0.25, got: '1' }],
    ],
  ])('when %s', (_, behaviour, edit, diffs) => {
    it(behaviour, () => {
      expect(driftAfter(edit)).toEqual(diffs);
    });
  });

  describe('when a desired label is missing', () => {
    it('reports the label, quoting keys that are not plain names', () => {
      const desired = deployment();
      (desired.metadata as Obj).labels = { app: 'web', 'app.kubernetes.io/name': 'web' };
      expect(driftOf(desired, liveDeployment())).toEqual([
        { path: 'metadata.labels["app.kubernetes.io/name"]', want: 'web', got: undefined },
      ]);
    });
  });

  describe('when resource quantities are written differently by the server', () => {
    it.each([
      [
        { cpu: '1000m', memory: '1024Mi', storage: 1073741824 },
        { cpu: '1', memory: '1Gi', storage: '1Gi' },
      ],
      [
        { cpu: 0.5, memory: '1e3' },
        { cpu: '500m', memory: '1k' },
      ],
    ])('is not drift (%j as %j)', (want, got) => {
      expect(driftOf({ spec: { resources: { limits: want } } }, { spec: { resources: { limits: got } } })).toEqual([]);
    });

    it('compares ResourceQuota hard and LimitRange limits as quantities too', () => {
      const quota = { kind: 'ResourceQuota', spec: { hard: { cpu: '1000m', 'requests.memory': '2Gi' } } };
      expect(driftOf(quota, { spec: { hard: { cpu: '1', 'requests.memory': '2048Mi' } } })).toEqual([]);
      const range = { kind: 'LimitRange', spec: { limits: [{ type: 'Container', max: { cpu: '2000m' } }] } };
      expect(driftOf(range, { spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } })).toEqual([]);
    });

    it('does not normalise quantity-looking values elsewhere', () => {
      const desired = { kind: 'ConfigMap', data: { size: '1000m' } };
      expect(driftOf(desired, { data: { size: '1' } })).toEqual([{ path: 'data.size', want: '1000m', got: '1' }]);
    });
  });

  describe('when a ConfigMap was edited', () => {
    const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1', b: '2' } };

    it.each([
      ['a changed value', { a: '1', b: 'changed' }, [{ path: 'data.b', want: '2', got: 'changed' }]],
      ['a deleted key', { a: '1' }, [{ path: 'data.b', want: '2', got: undefined }]],
      ['nothing for a key someone added', { a: '1', b: '2', c: '3' }, []],
    ])('reports %s', (_, data, diffs) => {
      expect(driftOf(desired, { ...clone(desired), data })).toEqual(diffs);
    });
  });

  describe('when comparing scalars', () => {
    it('treats 1 and 1.0 as equal but keeps strings, numbers and booleans apart', () => {
      const port = (targetPort: unknown) => ({ spec: { ports: [{ port: 80, targetPort }] } });
      expect(driftOf(port(8080), port(8080.0))).toEqual([]);
      expect(driftOf(port('80'), port(80))).toEqual([{ path: 'spec.ports[port=80].targetPort', want: '80', got: 80 }]);
      expect(driftOf({ spec: { paused: true } }, { spec: { paused: 'true' } })).toHaveLength(1);
    });
  });

  describe('when Service ports were defaulted, added or reordered', () => {
    it('is not drift, with ports keyed by port number', () => {
      const desired = { kind: 'Service', spec: { ports: [{ port: 80, name: 'http' }] } };
      const ports = [
        { port: 9090, name: 'metrics' },
        { port: 80, name: 'http', protocol: 'TCP', targetPort: 80 },
      ];
      expect(driftOf(desired, { spec: { ports } })).toEqual([]);
    });

    it('keys them by name when a port number repeats for TCP and UDP', () => {
      const dns = [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ];
      expect(driftOf({ spec: { ports: dns } }, { spec: { ports: [...dns].reverse() } })).toEqual([]);
      expect(driftOf({ spec: { ports: dns } }, { spec: { ports: dns.slice(0, 1) } })).toEqual([
        { path: 'spec.ports[name=dns-tcp]', want: dns[1], got: undefined },
      ]);
    });
  });

  describe('when the desired value is null', () => {
    // Issue 10 changed this rule: a rendered null is "no opinion" (the server fills in defaults such as an allocated
    // nodePort, and drift repair leaves nulls out of its apply), so it is covered whatever the live object holds.
    it('is covered whatever the live object holds: absent, null or a value the server filled in', () => {
      const desired = { spec: { replicas: null, strategy: null } };
      expect(driftOf(desired, { spec: { strategy: null } })).toEqual([]);
      expect(driftOf(desired, { spec: { replicas: 3 } })).toEqual([]);
    });
  });

  describe('when the desired map or list is empty', () => {
    it('is covered whatever the live object holds', () => {
      const desired = { metadata: { annotations: {} }, spec: { tolerations: [] } };
      expect(driftOf(desired, {})).toEqual([]);
      expect(driftOf(desired, { spec: { tolerations: [{ operator: 'Exists' }] } })).toEqual([]);
    });
  });

  describe('when a ClusterRole rule changed (a list of objects without a merge key)', () => {
    const rule = (verbs: string[]) => ({ apiGroups: [''], resources: ['pods'], verbs });
    const desired = { kind: 'ClusterRole', rules: [rule(['get']), rule(['list'])] };

    it('compares the rules by position', () => {
      expect(driftOf(desired, { rules: [rule(['get']), rule(['list', 'watch'])] })).toEqual([
        { path: 'rules[1].verbs', want: ['list'], got: ['list', 'watch'] },
      ]);
      expect(driftOf(desired, { rules: [rule(['list']), rule(['get'])] })).toHaveLength(2);
    });

    it('reports an added rule as drift, since the list is atomic', () => {
      const live = { rules: [...desired.rules, rule(['delete'])] };
      expect(driftOf(desired, live)).toEqual([{ path: 'rules', want: desired.rules, got: live.rules }]);
    });
  });

  describe('when a Secret was edited', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const desired = { kind: 'Secret', stringData: { user: 'admin', pass: 's3cret' }, data: { token: b64('t') } };

    it('compares stringData against the decoded live data', () => {
      const live = { kind: 'Secret', data: { user: b64('admin'), pass: b64('s3cret'), token: b64('t') } };
      expect(driftOf(desired, live)).toEqual([]);
    });

    it('reports changed or missing values without revealing them', () => {
      const live = { kind: 'Secret', data: { user: b64('root'), token: b64('other') } };
      expect(driftOf(desired, live)).toEqual([
        { path: 'data.token', want: REDACTED, got: REDACTED },
        { path: 'stringData.user', want: REDACTED, got: REDACTED },
        { path: 'stringData.pass', want: REDACTED, got: undefined },
      ]);
    });

    it('lets a stringData key win over the same data key, as the server does', () => {
      const both = { kind: 'Secret', stringData: { k: 'new' }, data: { k: b64('old') } };
      expect(driftOf(both, { data: { k: b64('new') } })).toEqual([]);
    });
  });

  describe('when there are more diffs than the limit', () => {
    const desired = { data: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'v'])) };

    it('stops at 20 by default', () => {
      expect(driftOf(desired, {})).toHaveLength(20);
    });

    it('stops at the limit given, but never below one', () => {
      expect(driftOf(desired, {}, 3).map((d) => d.path)).toEqual(['data.k0', 'data.k1', 'data.k2']);
      expect(driftOf(desired, {}, 0)).toHaveLength(1);
      expect(driftOf(desired, {}, Number.POSITIVE_INFINITY)).toHaveLength(30);
    });
  });
});

describe('trails and valueAt', () => {
  it('gives each diff the keys and desired-list indices that lead to it', () => {
    const live = liveDeployment();
    const containers = containersOf(live);
    containers.reverse(); // keyed by name: order does not matter
    Object.assign(containers[1] ?? {}, { image: 'nginx:latest' });
    Object.assign(live.spec as Obj, { replicas: 5 });
    expect(diffsOf(deployment(), live).map((d) => d.trail)).toEqual([
      ['spec', 'replicas'],
      ['spec', 'template', 'spec', 'containers', 0, 'image'],
    ]);
  });

  it('finds the value at a trail in another form of the object, keyed list elements by their key', () => {
    const live = liveDeployment();
    containersOf(live).reverse();
    const trail = ['spec', 'template', 'spec', 'containers', 0, 'imagePullPolicy'];
    expect(valueAt(deployment(), live, trail)).toBe('IfNotPresent');
    expect(valueAt(deployment(), live, ['spec', 'template', 'spec', 'containers', 0, 'args', 1])).toBe('8080');
    expect(valueAt(deployment(), live, ['spec', 'missing', 'deeper'])).toBeUndefined();
  });
});
