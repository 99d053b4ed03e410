import { describe, expect, it } from 'vitest';
import { fakeKube } from '../../test/support/drift-cluster.js';
import { silentLogger } from '../core/logger.js';
import { InvalidError, KubeApiError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { DriftConfirmer, type DryRuns, sameStored } from './confirm.js';
import { DriftRepairer } from './repair.js';
import { DRIFT_FIELD_MANAGER } from './writes.js';

const NS = 'team';
const MIRROR = 'mirror.example/';

/** A Deployment whose image an admission webhook rewrites to a mirror (so the subset check always sees drift). */
const MANIFEST = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;

/** The webhook: every container image is pulled through the mirror. */
function mirrorImages(obj: KubeObject): KubeObject {
  const spec = obj.spec as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined;
  for (const c of spec?.template?.spec?.containers ?? []) {
    if (c.image && !c.image.startsWith(MIRROR)) c.image = MIRROR + c.image;
  }
  return obj;
}

/** What the server holds for MANIFEST: the mirrored image, at `resourceVersion`, with `replicas`. */
function liveWeb({ resourceVersion = '7', replicas = 2 } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: NS, uid: 'u-web', resourceVersion, generation: 1, managedFields: [] },
    spec: { replicas, template: { spec: { containers: [{ name: 'web', image: `${MIRROR}nginx:1.27` }] } } },
    status: { replicas: 0 },
  };
}

const signal = () => new AbortController().signal;

function setup(live: KubeObject[], more: Parameters<typeof fakeKube>[2] = {}) {
  const f = fakeKube(live, {}, { mutate: mirrorImages, ...more });
  const repairer = new DriftRepairer({ kube: f.kube });
  return { f, repair: () => repairer.repair(MANIFEST, NS, signal(), silentLogger) };
}

describe('DriftRepairer.repair, confirming a suspected drift with a server-side dry run', () => {
  describe('when the dry run shows the server would store the object unchanged', () => {
    it('neither writes nor reports it', async () => {
      const { f, repair } = setup([liveWeb()]);

      expect(await repair()).toEqual({ checked: 1, corrected: [], failed: [], unconfirmed: [] });

      expect(f.patches).toEqual([]);
      expect(f.dryRuns).toHaveLength(1);
      expect(f.dryRuns[0]?.type).toBe('apply');
      expect(f.dryRuns[0]?.options).toMatchObject({ dryRun: true, fieldManager: DRIFT_FIELD_MANAGER, force: true });
    });

    it('remembers that verdict: the next repair of the same object version sends no dry run', async () => {
      const { f, repair } = setup([liveWeb()]);
      await repair();
      await repair();
      expect(f.dryRuns).toHaveLength(1);
      expect(f.patches).toEqual([]);
    });

    it('learns what the server stores for the rendering: a new version of the object raises no question', async () => {
      const { f, repair } = setup([liveWeb()]);
      await repair();
      f.kube.put(liveWeb({ resourceVersion: '8' }));
      await repair();
      expect(f.dryRuns).toHaveLength(1);
      expect(f.patches).toEqual([]);
    });

    it('learns a field the server drops (unknown to it) as absent: later versions raise no question', async () => {
      const manifest = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  notAField: dropped by the server
`;
      const dropUnknown = (obj: KubeObject): KubeObject => {
        delete (obj.spec as Record<string, unknown> | undefined)?.notAField;
        return obj;
      };
      const f = fakeKube([liveWeb()], {}, { mutate: dropUnknown });
      const repairer = new DriftRepairer({ kube: f.kube });
      const repair = () => repairer.repair(manifest, NS, signal(), silentLogger);
      await repair();
      f.kube.put(liveWeb({ resourceVersion: '8' }));
      await repair();
      expect(f.dryRuns).toHaveLength(1);
      expect(f.patches).toEqual([]);
    });

    it('still repairs a real change to a learned field: the image changed by hand is put back', async () => {
      const { f, repair } = setup([liveWeb()]);
      await repair();
      const changed = liveWeb({ resourceVersion: '8' });
      const containers = (changed.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
        .containers;
      (containers[0] as { image: string }).image = 'evil:latest';
      f.kube.put(changed);

      const result = await repair();

      expect(result.corrected.map((c) => c.paths)).toEqual([['spec.template.spec.containers[name=web].image']]);
      expect(f.patches).toHaveLength(1);
    });

    it('makes no request at all for a cached object whose version a dry run already found in sync', async () => {
      const live = liveWeb();
      const f = fakeKube([live], {}, { mutate: mirrorImages });
      const repairer = new DriftRepairer({ kube: f.kube, cached: () => live });
      await repairer.repair(MANIFEST, NS, signal(), silentLogger);
      const [gets, dryRuns] = [f.gets.length, f.dryRuns.length];

      await repairer.repair(MANIFEST, NS, signal(), silentLogger);

      expect([f.gets.length, f.dryRuns.length]).toEqual([gets, dryRuns]);
      expect(f.patches).toEqual([]);
    });
  });

  describe('when the dry run shows the apply would change the object', () => {
    it('applies the same body for real and reports the drifted paths', async () => {
      const { f, repair } = setup([liveWeb({ replicas: 5 })]);

      const result = await repair();

      expect(result.corrected).toMatchObject([{ action: 'patched', kind: 'Deployment', name: 'web' }]);
      expect(result.corrected[0]?.paths).toContain('spec.replicas');
      expect(f.dryRuns).toHaveLength(1);
      expect(f.patches).toHaveLength(1);
      expect(f.patches[0]?.options.dryRun).toBeUndefined();
      expect(f.patches[0]?.body).toEqual(f.dryRuns[0]?.body);
    });

    it('does not remember it: the next repair asks again', async () => {
      const { f, repair } = setup([liveWeb({ replicas: 5 })]);
      await repair();
      await repair();
      expect(f.dryRuns).toHaveLength(2);
    });
  });

  describe('when the chart renders nulls (no opinion) next to a real drift', () => {
    it('leaves the nulls out of the dry run and the apply, so that they clear nothing', async () => {
      const manifest = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
spec:
  replicas:
  template:
    spec:
      nodeSelector:
      containers:
        - name: web
          image: nginx:1.28
          args:
`;
      const f = fakeKube([liveWeb({ replicas: 4 })]);

      const result = await new DriftRepairer({ kube: f.kube }).repair(manifest, NS, signal(), silentLogger);

      expect(result.corrected.map((c) => c.paths)).toEqual([[`spec.template.spec.containers[name=web].image`]]);
      for (const call of [...f.dryRuns, ...f.patches]) {
        expect(call.body).toEqual({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: NS },
          spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
        });
      }
      expect(f.patches).toHaveLength(1);
    });
  });

  describe('when no dry run can tell (e.g. a webhook that does not support dry runs)', () => {
    const denied = () =>
      new InvalidError({ status: 400, serverMessage: 'admission webhook "mirror" does not support dry run' });

    it('writes nothing and reports the object once per version, saying why', async () => {
      const { f, repair } = setup([liveWeb()], { failDryRun: { web: denied() } });

      const first = await repair();
      const second = await repair();

      expect(f.patches).toEqual([]);
      expect(first.corrected).toEqual([]);
      expect(first.failed).toEqual([]);
      expect(first.unconfirmed).toEqual([
        {
          kind: 'Deployment',
          namespace: NS,
          name: 'web',
          message: expect.stringMatching(/does not support dry run; left as it is until it or its chart changes$/),
        },
      ]);
      expect(second.unconfirmed).toEqual([]);
      // The server rejects the object itself for both methods: the same dry runs are not sent again.
      expect(f.dryRuns.map((d) => d.type)).toEqual(['apply', 'merge']);
    });

    it('reports it again, and asks again, once the object changed', async () => {
      const { f, repair } = setup([liveWeb()], { failDryRun: { web: denied() } });
      await repair();
      f.kube.put(liveWeb({ resourceVersion: '8' }));
      expect((await repair()).unconfirmed).toHaveLength(1);
      // It is known by now that the server rejects it for server-side apply: the merge patch's dry run alone.
      expect(f.dryRuns.map((d) => d.type)).toEqual(['apply', 'merge', 'merge']);
    });

    it('asks again on the next repair when the dry run failed for a passing reason (an outage)', async () => {
      const outage = new KubeApiError({ status: 503, serverMessage: 'unavailable' });
      const { f, repair } = setup([liveWeb()], { failDryRun: { web: outage } });
      expect((await repair()).unconfirmed).toHaveLength(1);
      expect((await repair()).unconfirmed).toEqual([]);
      expect(f.dryRuns.map((d) => d.type)).toEqual(['apply', 'apply']);
      expect(f.patches).toEqual([]);
    });
  });

  describe('when the signal aborts during the dry run', () => {
    it('rejects and writes nothing', async () => {
      const controller = new AbortController();
      const f = fakeKube([liveWeb()], {}, { mutate: mirrorImages });
      f.kube.on('before', { verb: 'patch' }, () => controller.abort(new Error('stopping')));
      const repair = new DriftRepairer({ kube: f.kube }).repair(MANIFEST, NS, controller.signal, silentLogger);
      await expect(repair).rejects.toThrow('stopping');
      expect(f.patches).toEqual([]);
    });
  });
});

describe('DriftConfirmer', () => {
  const desired = { kind: 'Deployment' };
  const clean: DryRuns = { apply: async () => liveWeb(), merge: async () => liveWeb() };

  it('forgets the oldest verdict beyond its limit', async () => {
    const confirmer = new DriftConfirmer({ limit: 2 });
    const versions = ['1', '2', '3'].map((rv) => liveWeb({ resourceVersion: rv }));
    for (const live of versions)
      expect(await confirmer.confirm(desired, live, [], clean, signal())).toEqual({ kind: 'clean' });
    expect(versions.map((live) => confirmer.knownClean(desired, live))).toEqual([false, true, true]);
  });

  it('keeps verdicts per desired object: another rendering of the object is checked again', async () => {
    const confirmer = new DriftConfirmer();
    await confirmer.confirm(desired, liveWeb(), [], clean, signal());
    expect(confirmer.knownClean(desired, liveWeb())).toBe(true);
    expect(confirmer.knownClean({ kind: 'Deployment' }, liveWeb())).toBe(false);
  });

  it('remembers nothing for an object without a resourceVersion', async () => {
    const confirmer = new DriftConfirmer();
    const live = liveWeb({ resourceVersion: '' });
    const same: DryRuns = { apply: async () => live, merge: async () => live };
    expect(await confirmer.confirm(desired, live, [], same, signal())).toEqual({ kind: 'clean' });
    expect(confirmer.knownClean(desired, live)).toBe(false);
  });
});

describe('sameStored', () => {
  it('ignores status and server bookkeeping in metadata', () => {
    const dryRun = liveWeb({ resourceVersion: '9' });
    Object.assign(dryRun.metadata, { generation: 2, managedFields: [{ manager: DRIFT_FIELD_MANAGER }] });
    dryRun.status = { replicas: 2 };
    expect(sameStored(dryRun, liveWeb())).toBe(true);
  });

  it('sees a changed field, an added label and an added list element', () => {
    const changed = liveWeb({ replicas: 3 });
    const labelled = liveWeb();
    labelled.metadata.labels = { app: 'web' };
    const longer = liveWeb();
    (longer.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers.push({ name: 'x' });
    for (const other of [changed, labelled, longer]) expect(sameStored(other, liveWeb())).toBe(false);
  });

  it('does not care about the order of map keys', () => {
    const live = liveWeb();
    const reordered: KubeObject = {
      ...live,
      spec: { template: (live.spec as { template: unknown }).template, replicas: 2 },
    };
    expect(sameStored(reordered, liveWeb())).toBe(true);
  });
});
