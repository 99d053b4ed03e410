// Drift repair of an object that the API server rejects for server-side apply (a container env list that repeats
// a name, which Kubernetes and helm accept and SSA does not) and that renders a value the server defaults
// (`imagePullPolicy: ""`): no false drift, no write that cannot succeed, and real drift still put back.
import { describe, expect, it } from 'vitest';
import { fakeKube } from '../../test/support/drift-cluster.js';
import { silentLogger } from '../core/logger.js';
import { InvalidError, KubeApiError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { DriftRepairer } from './repair.js';

const NS = 'team';
const ENV = [
  { name: 'PGUSER', value: 'postgres' },
  { name: 'PGUSER', value: 'app' },
];
const MANIFEST = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: db
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: db
          image: postgres:17
          imagePullPolicy: ""
          env:
            - {name: PGUSER, value: postgres}
            - {name: PGUSER, value: app}
`;
const TYPED_PATCH = () =>
  new KubeApiError({
    status: 500,
    serverMessage:
      'failed to create typed patch object (team/db; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="db"].env: duplicate entries for key [name="PGUSER"]',
  });

/** The API server's defaulting: an empty imagePullPolicy becomes IfNotPresent. */
function defaults(obj: KubeObject): KubeObject {
  const spec = obj.spec as { template?: { spec?: { containers?: { imagePullPolicy?: string }[] } } } | undefined;
  for (const c of spec?.template?.spec?.containers ?? []) c.imagePullPolicy ||= 'IfNotPresent';
  return obj;
}

function liveDb({ resourceVersion = '5', replicas = 1, pull = 'IfNotPresent' } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'db', namespace: NS, uid: 'u-db', resourceVersion, generation: 1 },
    spec: {
      replicas,
      template: { spec: { containers: [{ name: 'db', image: 'postgres:17', imagePullPolicy: pull, env: ENV }] } },
    },
  };
}

function setup(live: KubeObject[]) {
  const f = fakeKube(live, {}, { mutate: defaults });
  f.kube.failOn({ verb: 'patch', name: 'db', patchType: 'apply' }, TYPED_PATCH());
  const repairer = new DriftRepairer({ kube: f.kube });
  const repair = () => repairer.repair(MANIFEST, NS, new AbortController().signal, silentLogger);
  return { f, repair };
}

describe('DriftRepairer.repair, for an object the server rejects for server-side apply', () => {
  describe('while nobody touches it', () => {
    it('confirms by a merge patch dry run of the suspected field that the default is no drift, and writes nothing', async () => {
      const { f, repair } = setup([liveDb()]);

      expect(await repair()).toEqual({ checked: 1, corrected: [], failed: [], unconfirmed: [] });

      expect(f.dryRuns.map((d) => d.type)).toEqual(['apply', 'merge']);
      const containers = [{ name: 'db', image: 'postgres:17', imagePullPolicy: '', env: ENV }];
      expect(f.dryRuns[1]?.body).toEqual({ spec: { template: { spec: { containers } } } });
      expect(f.patches).toEqual([]);
    });

    it('asks nothing more, even once the object has a new version: the default is learned', async () => {
      const { f, repair } = setup([liveDb()]);
      await repair();
      f.kube.put(liveDb({ resourceVersion: '6' }));
      await repair();
      await repair();
      expect(f.dryRuns).toHaveLength(2);
      expect(f.patches).toEqual([]);
    });
  });

  describe('when someone scales it', () => {
    it('puts the replicas back with a merge patch of that field alone', async () => {
      const { f, repair } = setup([liveDb({ replicas: 3 })]);

      const result = await repair();

      expect(result.failed).toEqual([]);
      expect(result.corrected).toMatchObject([{ action: 'patched', name: 'db' }]);
      expect(result.corrected[0]?.paths).toContain('spec.replicas');
      const writes = f.patches.map((p) => [p.type, p.body]);
      expect(writes).toContainEqual([
        'merge',
        expect.objectContaining({ spec: expect.objectContaining({ replicas: 1 }) }),
      ]);
      expect(f.kube.objects.get('deployments/team/db')?.spec).toMatchObject({ replicas: 1 });
    });
  });

  describe('when someone sets the defaulted field to another value', () => {
    it('puts the default back', async () => {
      const { f, repair } = setup([liveDb()]);
      await repair();
      f.kube.put(liveDb({ resourceVersion: '6', pull: 'Always' }));

      const result = await repair();

      expect(result.corrected[0]?.paths).toEqual(['spec.template.spec.containers[name=db].imagePullPolicy']);
      const stored = f.kube.objects.get('deployments/team/db') as unknown as {
        spec: { template: { spec: { containers: unknown[] } } };
      };
      expect(stored.spec.template.spec.containers).toEqual([
        { name: 'db', image: 'postgres:17', imagePullPolicy: 'IfNotPresent', env: ENV },
      ]);
    });
  });

  describe('when someone deletes it', () => {
    it('creates it again with a POST, once server-side apply rejected it', async () => {
      const { f, repair } = setup([]);

      const result = await repair();

      expect(result.failed).toEqual([]);
      expect(result.corrected).toMatchObject([{ action: 'created', name: 'db' }]);
      expect(f.kube.callsOf('create')).toHaveLength(1);
      expect(f.kube.objects.get('deployments/team/db')).toBeDefined();
    });
  });

  describe('when the server refuses the repair itself', () => {
    it('reports it once and does not send the same write again for the same version of the object', async () => {
      const { f, repair } = setup([liveDb({ replicas: 3 })]);
      f.kube.failOn({ verb: 'patch', name: 'db', patchType: 'merge', dryRun: false }, invalid());

      const first = await repair();
      const second = await repair();

      expect(first.failed).toHaveLength(1);
      expect(second.failed).toEqual([]);
      expect(f.patches).toHaveLength(1);
    });
  });
});

function invalid(): Error {
  return new InvalidError({ status: 422, serverMessage: 'Deployment.apps "db" is invalid: spec.selector: immutable' });
}
