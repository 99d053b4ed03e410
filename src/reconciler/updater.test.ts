import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../finalizers/finalizers.js';
import type { CrAccess, CustomResource, HelmAppStatus } from './types.js';
import { StatusUpdater } from './updater.js';

const DEPLOYED: HelmAppStatus = {
  conditions: [{ type: 'Deployed', status: 'True', reason: 'InstallSuccessful', lastTransitionTime: 't' }],
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

  it('writes nothing until apply, then the status first and the finalizer removal after it', async () => {
    const w = world({ finalizers: ['other', FINALIZER] }, {});
    w.updater.setStatus(DEPLOYED);
    w.updater.removeFinalizers();
    expect(w.writes).toEqual([]);
    await w.updater.apply(w.signal);
    expect(w.writes).toEqual(['status=Deployed', 'finalizers=other']);
    expect(w.updater.shown).toEqual(DEPLOYED);
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
});
