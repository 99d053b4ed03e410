import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../../finalizers/finalizers.js';
import { ConflictError } from '../../kube/errors.js';
import type { CrAccess, CustomResource, HelmAppStatus } from '../types.js';
import { StatusUpdater } from './updater.js';

/** A status as this operator stores it: `state` is derived from the conditions at every write. */
const DEPLOYED: HelmAppStatus = {
  conditions: [{ type: 'Deployed', status: 'True', reason: 'InstallSuccessful', lastTransitionTime: 't' }],
  state: 'Deployed',
};

function world(cr: Partial<CustomResource['metadata']> = {}, status?: unknown) {
  const writes: string[] = [];
  let failStatus: Error | undefined;
  const crs: CrAccess = {
    get: async () => undefined,
    async setFinalizers(o, finalizers) {
      writes.push(`finalizers=${finalizers.join(',')}`);
      return { ...o, metadata: { ...o.metadata, finalizers } };
    },
    async writeStatus(o, s) {
      if (failStatus) throw failStatus;
      writes.push(`status=${s.conditions.map((c) => c.type).join(',')}`);
      return { ...o, status: s };
    },
  };
  const object: CustomResource = {
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Nginx',
    metadata: { name: 'web', namespace: 'apps', ...cr },
    ...(status === undefined ? {} : { status }),
  };
  const signal = new AbortController().signal;
  return {
    writes,
    signal,
    updater: new StatusUpdater({ crs, cr: object }),
    failStatusWith(err: Error) {
      failStatus = err;
    },
  };
}

describe('StatusUpdater', () => {
  it('adds the finalizer right away, and only when it is missing', async () => {
    const w = world();
    await w.updater.addFinalizer(w.signal);
    await w.updater.addFinalizer(w.signal);
    expect(w.writes).toEqual([`finalizers=${FINALIZER}`]);
    expect(w.updater.cr.metadata.finalizers).toEqual([FINALIZER]);
  });

  it('lays what amend() was given over whichever status apply() writes, and writes nothing without a status', async () => {
    const w = world({}, DEPLOYED);
    const paused = { type: 'Paused', status: 'True' as const, lastTransitionTime: 't' };
    w.updater.amend((s) => ({ ...s, conditions: [...s.conditions, paused] }));
    await w.updater.apply(w.signal);
    expect(w.writes).toEqual([]);
    w.updater.setStatus(DEPLOYED);
    await w.updater.apply(w.signal);
    expect(w.writes).toEqual(['status=Deployed,Paused']);
    expect(w.updater.shown.state).toBe('Paused');
  });

  it('writes nothing until apply, then the status first and the finalizer removal after it', async () => {
    const w = world({ finalizers: ['other', FINALIZER] }, {});
    w.updater.setStatus(DEPLOYED);
    w.updater.removeFinalizers();
    expect(w.writes).toEqual([]);
    await w.updater.apply(w.signal);
    expect(w.writes).toEqual(['status=Deployed', 'finalizers=other']);
    expect(w.updater.shown).toEqual(DEPLOYED);
  });

  it('stores the state word derived from the conditions, so that a status without it is written once', async () => {
    const older = world({}, { conditions: DEPLOYED.conditions });
    older.updater.setStatus({ conditions: DEPLOYED.conditions });
    await older.updater.apply(older.signal);
    expect(older.writes).toEqual(['status=Deployed']);
    expect(older.updater.shown.state).toBe('Deployed');
  });

  it('writes a status equal to the stored one only when the CR has no status at all', async () => {
    const stored = world({}, DEPLOYED);
    stored.updater.setStatus(DEPLOYED);
    await stored.updater.apply(stored.signal);
    expect(stored.writes).toEqual([]);
    const none = world();
    none.updater.setStatus({ conditions: [] });
    await none.updater.apply(none.signal);
    expect(none.writes).toEqual(['status=']);
  });

  it('applies each change once: a second apply writes nothing', async () => {
    const w = world({ finalizers: [FINALIZER] }, {});
    w.updater.setStatus(DEPLOYED);
    w.updater.removeFinalizers();
    await w.updater.apply(w.signal);
    await w.updater.apply(w.signal);
    expect(w.writes).toHaveLength(2);
  });

  it('runs afterApply callbacks once the writes succeed, and drops them when a write fails', async () => {
    const ok = world({}, {});
    const ran: string[] = [];
    ok.updater.setStatus(DEPLOYED);
    ok.updater.afterApply(() => ran.push(`after ${ok.writes.length} writes`));
    await ok.updater.apply(ok.signal);
    expect(ran).toEqual(['after 1 writes']);

    const failing = world({}, {});
    failing.failStatusWith(new Error('conflict'));
    failing.updater.setStatus(DEPLOYED);
    failing.updater.afterApply(() => ran.push('must not run'));
    await expect(failing.updater.apply(failing.signal)).rejects.toThrow('conflict');
    expect(ran).toEqual(['after 1 writes']);
    expect(failing.updater.shown).toEqual({ conditions: [] });
  });

  describe('a write based on a stale (cached) copy', () => {
    /** The API server holds `server`; the updater starts from an older copy whose resourceVersion is '1'. */
    function stale(server: CustomResource, held: CustomResource) {
      const writes: string[] = [];
      let current = server;
      const write = (o: CustomResource, what: string, next: CustomResource) => {
        if (o.metadata.resourceVersion !== current.metadata.resourceVersion) {
          throw new ConflictError({ status: 409, reason: 'Conflict', operation: 'update' });
        }
        writes.push(what);
        current = {
          ...next,
          metadata: { ...next.metadata, resourceVersion: `${Number(o.metadata.resourceVersion) + 1}` },
        };
        return current;
      };
      const crs: CrAccess = {
        get: async () => held,
        latest: async () => current,
        setFinalizers: async (o, f) =>
          write(o, `finalizers=${f.join(',')}`, { ...o, metadata: { ...o.metadata, finalizers: f } }),
        writeStatus: async (o, s) =>
          write(o, `status=${s.conditions.map((c) => c.type).join(',')}`, { ...o, status: s }),
      };
      return { writes, updater: new StatusUpdater({ crs, cr: held }), signal: new AbortController().signal };
    }
    const cr = (rv: string, finalizers: string[], status?: HelmAppStatus): CustomResource => ({
      apiVersion: 'demo.example.com/v1alpha1',
      kind: 'Nginx',
      metadata: { name: 'web', namespace: 'apps', resourceVersion: rv, finalizers },
      ...(status ? { status } : {}),
    });

    it('re-reads the CR and writes the status once more when the held copy conflicts', async () => {
      const w = stale(cr('5', [FINALIZER], { conditions: [] }), cr('1', [FINALIZER], { conditions: [] }));
      w.updater.setStatus(DEPLOYED);
      await w.updater.apply(w.signal);
      expect(w.writes).toEqual(['status=Deployed']);
      expect(w.updater.cr.metadata.resourceVersion).toBe('6');
    });

    it('decides again on the fresh copy: no write when the server already shows that status', async () => {
      const w = stale(cr('5', [FINALIZER], DEPLOYED), cr('1', [FINALIZER], { conditions: [] }));
      w.updater.setStatus(DEPLOYED);
      await w.updater.apply(w.signal);
      expect(w.writes).toEqual([]);
    });

    it('adds the finalizer to the fresh list, keeping one another client added meanwhile', async () => {
      const w = stale(cr('5', ['other'], { conditions: [] }), cr('1', [], { conditions: [] }));
      await w.updater.addFinalizer(w.signal);
      expect(w.writes).toEqual([`finalizers=other,${FINALIZER}`]);
    });

    it('removes our finalizer from the fresh list', async () => {
      const w = stale(cr('5', [FINALIZER, 'other'], { conditions: [] }), cr('1', [FINALIZER], { conditions: [] }));
      w.updater.removeFinalizers();
      await w.updater.apply(w.signal);
      expect(w.writes).toEqual(['finalizers=other']);
    });
  });

  describe('writeNow', () => {
    const RUNNING: HelmAppStatus = {
      conditions: [{ type: 'Reconciling', status: 'True', reason: 'HelmStillRunning', lastTransitionTime: 't' }],
      state: 'HelmRunning',
    };

    it('writes the changed status at once and leaves what apply() would write queued', async () => {
      const w = world({ finalizers: ['other', FINALIZER] }, {});
      w.updater.setStatus(DEPLOYED);
      w.updater.removeFinalizers();
      await w.updater.writeNow((shown) => ({ conditions: [...shown.conditions, ...RUNNING.conditions] }), w.signal);
      expect(w.writes).toEqual(['status=Reconciling']);
      expect(w.updater.shown).toEqual(RUNNING);
      await w.updater.apply(w.signal);
      expect(w.writes).toEqual(['status=Reconciling', 'status=Deployed', 'finalizers=other']);
    });

    it('writes nothing when the change leaves the status as shown', async () => {
      const w = world({}, RUNNING);
      await w.updater.writeNow((shown) => shown, w.signal);
      expect(w.writes).toEqual([]);
    });
  });
});
