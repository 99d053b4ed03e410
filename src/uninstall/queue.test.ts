import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import { RetryLaterError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import type { Release } from '../helm/types.js';
import { type QueueRequest, uninstallQueue } from './queue.js';
import { batchShare, type DeletingObject } from './share.js';
import type { UninstallOutcome } from './uninstaller.js';

const cr = (name: string, uid = `uid-${name}`): DeletingObject => ({
  metadata: { name, namespace: 'apps', uid, deletionTimestamp: '2026-01-01T00:05:00Z' },
});

/** A request of `name`'s own pass: its helm calls and the members it was asked about are recorded. */
function request(name: string, helmCalls: string[], more: Partial<QueueRequest> = {}): QueueRequest {
  return {
    key: `apps/${name}`,
    uid: `uid-${name}`,
    namespace: 'apps',
    release: name,
    newest: releaseRecord({ name }),
    disableHooks: false,
    signal: new AbortController().signal,
    log: silentLogger,
    helm: async (also) => {
      helmCalls.push([name, ...also].join(' '));
    },
    member: async (m) => releaseRecord({ name: m.metadata.name }),
    ...more,
  };
}

/** An uninstaller that takes everything; each uninstall waits for `gate` when given. */
function uninstaller(done: string[], gate?: Promise<void>) {
  return {
    takes: () => true,
    uninstall: async (r: { newest: Release }): Promise<UninstallOutcome> => {
      await gate;
      done.push(r.newest.name);
      return 'uninstalled';
    },
  };
}

describe('the uninstall queue', () => {
  it('starts a lone request at once: no timer, no read of company, one helm process for it alone', async () => {
    const calls: string[] = [];
    let asked = 0;
    const q = uninstallQueue({ deleting: () => [cr('web')] });
    const result = q.uninstall(
      request('web', calls, {
        member: async () => {
          asked++;
          return undefined;
        },
      }),
    );
    await expect(result).resolves.toBe('uninstalled');
    expect(calls).toEqual(['web']);
    expect(asked).toBe(0);
  });

  it('leaves out of its helm process a member taken back by its own pass while later members were read', async () => {
    const calls: string[] = [];
    let release: () => void = () => undefined;
    const reading = new Promise<void>((r) => {
      release = r;
    });
    let askedAboutDb: () => void = () => undefined;
    const dbAsked = new Promise<void>((r) => {
      askedAboutDb = r;
    });
    const q = uninstallQueue({ deleting: () => [cr('web'), cr('api'), cr('db')], lanes: 1 });
    const web = q.uninstall(
      request('web', calls, {
        member: async (m) => {
          if (m.metadata.name === 'db') {
            askedAboutDb();
            await reading; // api was picked; db's record is still being read
          }
          return releaseRecord({ name: m.metadata.name });
        },
      }),
    );
    await dbAsked;
    // api's own pass comes now: the job has not begun it, so api takes it back and runs it itself.
    await expect(q.uninstall(request('api', calls))).resolves.toBe('uninstalled');
    release();
    await expect(web).resolves.toBe('uninstalled');
    expect(calls).toEqual(['api', 'web db']);
  });

  it('answers a member its own outcome once, without running anything for it, and then forgets it', async () => {
    const done: string[] = [];
    const q = uninstallQueue({ uninstaller: uninstaller(done), deleting: () => [cr('web'), cr('api')] });
    const calls: string[] = [];
    await expect(q.uninstall(request('web', calls))).resolves.toBe('uninstalled');
    await expect.poll(() => [...done].sort()).toEqual(['api', 'web']);
    // api's own pass: already gone, nothing runs (even with no record left to read).
    await expect(q.uninstall(request('api', calls, { newest: undefined }))).resolves.toBe('uninstalled');
    expect(done.sort()).toEqual(['api', 'web']);
    // Asked again (a lagging copy), it has no outcome kept: with no record left it is not found.
    await expect(q.uninstall(request('api', calls, { newest: undefined }))).resolves.toBe('not-found');
    expect(calls).toEqual([]);
  });

  it('never gives an outcome to another CR of the same name (another uid): that one runs its own', async () => {
    const done: string[] = [];
    const q = uninstallQueue({ uninstaller: uninstaller(done), deleting: () => [cr('web'), cr('api')] });
    await q.uninstall(request('web', []));
    await expect.poll(() => done.length).toBe(2);
    const again = request('api', [], { uid: 'uid-api-2' });
    await expect(q.uninstall(again)).resolves.toBe('uninstalled');
    expect(done.filter((n) => n === 'api')).toHaveLength(2);
  });

  it('answers the asking pass as soon as its own release is gone, while the lanes go on with the members', async () => {
    const done: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const members = {
      takes: () => true,
      uninstall: async (r: { newest: Release }): Promise<UninstallOutcome> => {
        if (r.newest.name !== 'web') await gate;
        done.push(r.newest.name);
        return 'uninstalled';
      },
    };
    const q = uninstallQueue({ uninstaller: members, deleting: () => [cr('web'), cr('api')] });
    await expect(q.uninstall(request('web', []))).resolves.toBe('uninstalled');
    expect(done).toEqual(['web']);
    // api is held: its own pass waits for the lane, then has its answer.
    const api = q.uninstall(request('api', []));
    open();
    await expect(api).resolves.toBe('uninstalled');
    expect(done).toEqual(['web', 'api']);
  });

  it('lets a member pass take its release back when its job has not begun it, rather than idle its worker', async () => {
    const done: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const one = {
      takes: () => true,
      uninstall: async (r: { newest: Release }): Promise<UninstallOutcome> => {
        if (r.newest.name === 'api') await gate;
        done.push(r.newest.name);
        return 'uninstalled';
      },
    };
    const q = uninstallQueue({ uninstaller: one, parallel: 1, deleting: () => [cr('web'), cr('api'), cr('db')] });
    await expect(q.uninstall(request('web', []))).resolves.toBe('uninstalled');
    // The one lane is on api; db's own pass comes: it starts db at once instead of waiting behind api.
    await expect(q.uninstall(request('db', []))).resolves.toBe('uninstalled');
    expect(done).toEqual(['web', 'db']);
    open();
    await expect(q.uninstall(request('api', []))).resolves.toBe('uninstalled');
    await expect.poll(() => done).toEqual(['web', 'db', 'api']); // db once: the job skipped it
  });

  it('never takes a CR that is asking itself meanwhile: two requests at once run no release twice', async () => {
    const calls: string[] = [];
    const q = uninstallQueue({ lanes: 2, deleting: () => ['a', 'b', 'c', 'd'].map((n) => cr(n)) });
    const slow = async (m: DeletingObject) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return releaseRecord({ name: m.metadata.name });
    };
    await Promise.all(['a', 'b'].map((n) => q.uninstall(request(n, calls, { member: slow }))));
    const named = calls.flatMap((c) => c.split(' '));
    expect(new Set(named).size).toBe(named.length);
    expect(named).toEqual(expect.arrayContaining(['a', 'b']));
  });

  it('asks a release another reconciler runs helm on to come back later', async () => {
    const q = uninstallQueue({ inFlight: new Set(['apps/web']) });
    await expect(q.uninstall(request('web', []))).rejects.toBeInstanceOf(RetryLaterError);
  });

  it('a waiting member pass that is canceled stops waiting; the job goes on', async () => {
    const done: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const slow = {
      takes: () => true,
      uninstall: async (r: { newest: Release }): Promise<UninstallOutcome> => {
        if (r.newest.name === 'api') await gate;
        done.push(r.newest.name);
        return 'uninstalled';
      },
    };
    const q = uninstallQueue({ uninstaller: slow, deleting: () => [cr('web'), cr('api')] });
    await q.uninstall(request('web', []));
    const canceled = new AbortController();
    const api = q.uninstall(request('api', [], { signal: canceled.signal }));
    canceled.abort(new Error('stopping'));
    await expect(api).rejects.toThrow('stopping');
    open();
    await expect.poll(() => done).toEqual(['web', 'api']);
  });
});

describe('batchShare', () => {
  it('gives each worker an equal share of what is waiting and what running jobs still hold, at least 1', () => {
    expect(batchShare(1, 0, 2)).toBe(1);
    expect(batchShare(98, 0, 2)).toBe(49);
    expect(batchShare(49, 49, 2)).toBe(49);
    expect(batchShare(34, 6, 2)).toBe(20);
    expect(batchShare(10, 0, 0)).toBe(10);
    expect(batchShare(3, 40, 2)).toBe(22); // the caller bounds it by what waits
  });
});
