// Deletion passes over the uninstall queue (uninstall/queue.ts) with the shared fakes: one pass's job takes the
// releases of other CRs being deleted, and each CR's own pass then writes its own status, event and finalizer (two
// writes, no helm); what the job could not do, each member's own pass does alone and reports.
import { describe, expect, it } from 'vitest';
import { FakeHelm, helmCommandError, releaseRecord } from '../../../test/fakes/helm.js';
import { CrShelf, nginxCr, reconcilerOptions } from '../../../test/fakes/reconciler.js';
import { RetryLaterError } from '../../core/errors.js';
import { FINALIZER } from '../../finalizers/finalizers.js';
import type { Release, UninstallParams } from '../../helm/types.js';
import { NotFoundError } from '../../kube/errors.js';
import type { StoredRelease } from '../../records/types.js';
import { UninstallFailedError } from '../../uninstall/errors.js';
import { type UninstallQueueOptions, uninstallQueue } from '../../uninstall/queue.js';
import type { UninstallOutcome, UninstallRequest } from '../../uninstall/uninstaller.js';
import type { HelmReconcilerOptions } from '../options.js';
import { HelmReconciler } from '../reconciler.js';
import type { CustomResource, HelmAppStatus } from '../types.js';

const UNINSTALL_WAIT = 'helm.sdk.operatorframework.io/uninstall-wait';
const NO_HOOKS = 'helm.sdk.operatorframework.io/uninstall-disable-hooks';

/** A CR of apps/ (or `namespace`) being deleted at `at` (a minute of 2026-01-01) with our finalizer. */
const deleting = (name: string, at = '00:05', extra: Partial<CustomResource['metadata']> = {}) =>
  nginxCr(
    {},
    { name, finalizers: [FINALIZER], deletionTimestamp: `2026-01-01T${at}:00Z`, uid: `uid-${name}`, ...extra },
  );

/** Deployed releases of the nginx chart for `names` (or another chart's for `foreign`). */
function records(names: readonly string[], foreign: readonly string[] = []) {
  const stored = new Map<string, StoredRelease[]>();
  const add = (name: string, chart: string) => {
    stored.set(name, [{ release: releaseRecord({ name, chart: { name: chart, version: '0.1.0' } }), labels: {} }]);
  };
  for (const n of names) add(n, 'nginx');
  for (const n of foreign) add(n, 'other');
  return { history: async (_ns: string, name: string) => stored.get(name) ?? [], stored };
}

type QueueSettings = Omit<UninstallQueueOptions<CustomResource>, 'deleting' | 'inFlight'>;

function world(
  crs: CustomResource[],
  {
    port = true,
    queue = {},
    ...overrides
  }: Partial<HelmReconcilerOptions> & { port?: boolean; queue?: QueueSettings } = {},
) {
  const shelf = new CrShelf(crs);
  const helm = new FakeHelm();
  const events: string[] = [];
  /** Each write as `<the pass whose reconcile wrote> <what> <the CR written>`. */
  const writes: string[] = [];
  let current = '';
  const access = overrides.crs ?? shelf.access;
  const crAccess = {
    ...access,
    setFinalizers: (cr: CustomResource, f: readonly string[], o: { signal: AbortSignal }) => {
      writes.push(`${current} finalizer ${cr.metadata.name}`);
      return access.setFinalizers(cr, f, o);
    },
    writeStatus: (cr: CustomResource, s: HelmAppStatus, o: { signal: AbortSignal }) => {
      writes.push(`${current} status ${cr.metadata.name}`);
      return access.writeStatus(cr, s, o);
    },
  };
  const inFlight = overrides.inFlight ?? new Set<string>();
  const uninstalls = uninstallQueue<CustomResource>({
    ...queue,
    inFlight,
    ...(port ? { deleting: (ns: string) => shelf.deleting(ns) } : {}),
  });
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      releases: records(crs.map((c) => c.metadata.name)),
      helm,
      events: { event: (cr, type, reason) => events.push(`${cr.metadata.name} ${type} ${reason}`) },
      ...overrides,
      crs: crAccess,
      inFlight,
      uninstalls,
    }),
  );
  const reconcile = (name: string) => {
    current = name;
    return reconciler.reconcile(`apps/${name}`, new AbortController().signal);
  };
  const uninstalls_ = () => helm.callsOf('uninstall').map((p) => [p.release, ...(p.also ?? [])].join(' '));
  const condition = (name: string, type: string) =>
    (shelf.get('apps', name)?.status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === type);
  /** Every write so far was made by the pass of the CR it wrote. */
  const ownWritesOnly = () => expect(writes.filter((w) => w.split(' ')[0] !== w.split(' ')[2])).toEqual([]);
  return { shelf, helm, events, writes, reconcile, uninstalls: uninstalls_, condition, ownWritesOnly };
}

describe('deletion passes over the uninstall queue, through helm', () => {
  it("takes the others' releases in the asking pass's helm process, and each CR's own pass finishes it in two writes", async () => {
    const w = world([
      deleting('web'),
      deleting('db', '00:04'),
      deleting('api', '00:04'),
      deleting('waits', '00:01', { annotations: { [UNINSTALL_WAIT]: 'true' } }),
      deleting('bare', '00:01', { annotations: { [NO_HOOKS]: 'true' } }),
      deleting('bad', '00:01', { annotations: { [UNINSTALL_WAIT]: 'maybe' } }),
      deleting('elsewhere', '00:01', { namespace: 'other' }),
      nginxCr({}, { name: 'kept', finalizers: [FINALIZER] }),
    ]);
    w.helm.on('uninstall', () => undefined);

    expect(await w.reconcile('web')).toEqual({});
    // uninstall-wait, other hook options and an invalid annotation go alone; so does another namespace.
    expect(w.uninstalls()).toEqual(['web api db']);
    // The pass wrote its own CR only: the members still hold their finalizers until their own passes come.
    expect(w.writes).toEqual(['web status web', 'web finalizer web']);
    for (const name of ['api', 'db']) expect(w.shelf.get('apps', name)?.metadata.finalizers).toEqual([FINALIZER]);

    for (const name of ['api', 'db']) {
      const before = w.writes.length;
      expect(await w.reconcile(name)).toEqual({});
      expect(w.shelf.get('apps', name)).toBeUndefined();
      expect(w.writes.slice(before)).toEqual([`${name} status ${name}`, `${name} finalizer ${name}`]);
    }
    expect(w.uninstalls()).toEqual(['web api db']); // no helm for the members' own passes
    w.ownWritesOnly();
    expect(w.events.sort()).toEqual([
      'api Normal UninstallSucceeded',
      'db Normal UninstallSucceeded',
      'web Normal UninstallSucceeded',
    ]);
    for (const name of ['waits', 'bare', 'bad', 'kept'])
      expect(w.shelf.get('apps', name)?.metadata.finalizers).toEqual([FINALIZER]);
  });

  it('a member held by a running job: its own pass waits for its outcome (no helm of its own) and finishes itself', async () => {
    const w = world([deleting('web'), deleting('api'), deleting('db')]);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    w.helm.once('uninstall', (p: UninstallParams) => {
      p.onUninstalled?.('web');
      p.onUninstalled?.('api');
      p.onUninstalled?.('stranger'); // not in this job: ignored
      return held;
    });
    const leader = w.reconcile('web');
    await expect.poll(() => w.uninstalls()).toEqual(['web api db']);
    // helm reported api gone and still runs: api's own pass finishes now, db's waits for helm.
    expect(await w.reconcile('api')).toEqual({});
    expect(w.shelf.get('apps', 'api')).toBeUndefined();
    const db = w.reconcile('db');
    release();
    expect(await leader).toEqual({});
    expect(await db).toEqual({});
    expect(w.shelf.get('apps', 'db')).toBeUndefined();
    expect(w.uninstalls()).toEqual(['web api db']);
  });

  it('never takes a member again while the informers still show it (and its records) after it was finished', async () => {
    const crs = ['web', 'api', 'db'].map((n, i) => deleting(n, '00:05', { resourceVersion: `${i + 1}` }));
    const w = world(crs, { releases: records(['web', 'api', 'db', 'late']) });
    w.helm.on('uninstall', () => undefined);
    await w.reconcile('web');
    await w.reconcile('api');
    await w.reconcile('db');
    // The informers lag: api and db still listed as being deleted, their records still there.
    for (const cr of crs.slice(1)) w.shelf.put(cr);
    expect(await w.reconcile('api')).toEqual({});
    w.shelf.put(deleting('late', '00:06'));
    await w.reconcile('late');
    expect(w.uninstalls()).toEqual(['web api db', 'late']);
  });

  it('takes at most `batch` releases, and with 1 runs one helm process per CR', async () => {
    const crs = ['a', 'b', 'c', 'd'].map((n) => deleting(n));
    const three = world(crs, { queue: { batch: 3 } });
    three.helm.on('uninstall', () => undefined);
    await three.reconcile('a');
    expect(three.uninstalls()).toEqual(['a b c']);

    const one = world(crs, { queue: { batch: 1 } });
    one.helm.on('uninstall', () => undefined);
    await one.reconcile('a');
    await one.reconcile('b');
    expect(one.uninstalls()).toEqual(['a', 'b']);
  });

  it('leaves a release of another chart, a CR whose last uninstall failed, and one already in flight alone', async () => {
    const failed: HelmAppStatus = {
      conditions: [
        { type: 'ReleaseFailed', status: 'True', reason: 'UninstallError', message: 'x', lastTransitionTime: '' },
      ],
    };
    const w = world([deleting('web'), deleting('theirs'), deleting('failing'), deleting('busy'), deleting('ok')], {
      releases: records(['web', 'failing', 'busy', 'ok'], ['theirs']),
      inFlight: new Set(['apps/busy']),
    });
    const failing = w.shelf.get('apps', 'failing');
    if (failing) w.shelf.put({ ...failing, status: failed });
    w.helm.on('uninstall', () => undefined);
    await w.reconcile('web');
    expect(w.uninstalls()).toEqual(['web ok']);
  });

  it('when helm stops at a member: those gone before it finish on their own passes; that one then goes alone, the rest together', async () => {
    const names = ['web', 'api', 'db', 'queue', 'cache'];
    const crs = names.map((n, i) => deleting(n, `00:0${i + 1}`));
    const w = world(crs, { releases: records([...names, 'late']) });
    const stopped = helmCommandError('uninstall', 'Error: uninstall: failed pre-delete: job failed', {
      release: 'db',
      uninstalled: ['web', 'api'],
    });
    w.helm.failNext('uninstall', stopped);

    expect(await w.reconcile('web')).toEqual({});
    expect(w.uninstalls()).toEqual(['web api db queue cache']);
    expect(w.shelf.get('apps', 'web')).toBeUndefined();
    expect(await w.reconcile('api')).toEqual({});
    expect(w.shelf.get('apps', 'api')).toBeUndefined();
    // Untouched: no status, no event, the finalizer kept.
    for (const name of ['db', 'queue', 'cache']) {
      expect(w.shelf.get('apps', name)?.metadata.finalizers).toEqual([FINALIZER]);
      expect(w.shelf.get('apps', name)?.status).toBeUndefined();
    }
    expect(w.events.sort()).toEqual(['api Normal UninstallSucceeded', 'web Normal UninstallSucceeded']);

    // cache's pass comes first: queue joins it, db (where helm stopped) does not.
    w.helm.on('uninstall', () => undefined);
    expect(await w.reconcile('cache')).toEqual({});
    expect(w.uninstalls().at(-1)).toBe('cache queue');

    // db's own pass runs helm for db alone and reports db's error as its own.
    w.shelf.put(deleting('late', '00:06'));
    w.helm.failNext(
      'uninstall',
      helmCommandError('uninstall', 'Error: failed pre-delete: job failed', { release: 'db' }),
    );
    await expect(w.reconcile('db')).rejects.toThrow(/failed pre-delete/);
    expect(w.uninstalls().at(-1)).toBe('db');
    expect(w.events).toContain('db Warning UninstallFailed');
    expect(w.condition('db', 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'UninstallError' });
    expect(w.shelf.get('apps', 'late')?.metadata.finalizers).toEqual([FINALIZER]);
    w.ownWritesOnly();
  });

  it('when the asking release fails, reports its error and touches no member, which then goes on its own pass', async () => {
    const w = world([deleting('web'), deleting('api')]);
    w.helm.failNext('uninstall', helmCommandError('uninstall', 'Error: boom', { uninstalled: [] }));
    await expect(w.reconcile('web')).rejects.toThrow(/boom/);
    expect(w.events).toEqual(['web Warning UninstallFailed']);
    expect(w.shelf.get('apps', 'api')?.metadata.finalizers).toEqual([FINALIZER]);
    expect(w.shelf.get('apps', 'api')?.status).toBeUndefined();
    w.helm.on('uninstall', () => undefined);
    expect(await w.reconcile('api')).toEqual({});
    expect(w.uninstalls()).toEqual(['web api', 'api']);
    w.ownWritesOnly();
  });

  it('a lagging copy of a CR its own pass finished does nothing, and a 404 on its status means it is gone', async () => {
    const web = deleting('web');
    const w = world([web], { releases: records(['web', 'api']) });
    w.helm.on('uninstall', () => undefined);
    expect(await w.reconcile('web')).toEqual({});
    expect(w.shelf.get('apps', 'web')).toBeUndefined();
    w.shelf.put(web); // the informer still shows it, finalizer and records too
    expect(await w.reconcile('web')).toEqual({});
    expect(w.uninstalls()).toEqual(['web']);
    expect(w.events).toEqual(['web Normal UninstallSucceeded']);

    // A copy the operator never saw finish (another replica's, say): the API server answers 404, which ends the pass.
    const gone = new NotFoundError({ status: 404, reason: 'NotFound' });
    const shelf = new CrShelf([deleting('api')]);
    const v = world([], { crs: { ...shelf.access, writeStatus: () => Promise.reject(gone) }, releases: records([]) });
    expect(await v.reconcile('api')).toEqual({});
    expect(v.uninstalls()).toEqual([]);
  });

  it('shares the CRs being deleted over the workers, counting what running jobs have not uninstalled yet', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const w = world(
      names.map((n) => deleting(n)),
      { queue: { lanes: 2, batch: 50 } },
    );
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    w.helm.once('uninstall', (p: UninstallParams) => {
      for (const name of ['a', 'b']) p.onUninstalled?.(name);
      return held;
    });
    w.helm.on('uninstall', () => undefined);
    // 8 waiting, none running, 2 workers: the first pass takes half.
    const first = w.reconcile('a');
    await expect.poll(() => w.uninstalls()).toEqual(['a b c d']);
    // a and b are gone, c and d still run: (4 waiting + 2 running) / 2 = 3 for the next worker.
    await w.reconcile('e');
    expect(w.uninstalls()).toEqual(['a b c d', 'e f g']);
    release();
    await first;
    await w.reconcile('h');
    expect(w.uninstalls()).toEqual(['a b c d', 'e f g', 'h']);
  });

  it('a release another reconciler runs helm on: the pass comes back later, with no failure written', async () => {
    const w = world([deleting('web')], { inFlight: new Set(['apps/web']) });
    await expect(w.reconcile('web')).rejects.toBeInstanceOf(RetryLaterError);
    expect(w.uninstalls()).toEqual([]);
    expect(w.writes).toEqual([]);
    expect(w.events).toEqual([]);
  });

  it('without the deleting CRs, uninstalls its own release only', async () => {
    const w = world([deleting('web'), deleting('api')], { port: false });
    w.helm.on('uninstall', (p: UninstallParams) => expect(p.also).toBeUndefined());
    await w.reconcile('web');
    expect(w.uninstalls()).toEqual(['web']);
  });
});

describe('deletion passes over the uninstall queue, in-process', () => {
  /** An uninstaller that takes releases except `declined`, fails `failing`, and records what it uninstalled. */
  const uninstaller = (done: string[], { declined = [] as string[], failing = [] as string[] } = {}) => ({
    takes: (n: Release) => !declined.includes(n.name),
    uninstall: async (r: UninstallRequest): Promise<UninstallOutcome> => {
      if (failing.includes(r.newest.name)) throw new UninstallFailedError(`failed to delete release ${r.newest.name}`);
      done.push(r.newest.name);
      return 'uninstalled';
    },
  });

  it('uninstalls the others it takes beside its own; each own pass finishes its CR; the rest go to helm', async () => {
    const done: string[] = [];
    const crs = ['web', 'api', 'db', 'hooked'].map((n) => deleting(n));
    const w = world(crs, { queue: { uninstaller: uninstaller(done, { declined: ['hooked'] }) } });
    w.helm.on('uninstall', () => undefined);
    expect(await w.reconcile('web')).toEqual({});
    await expect.poll(() => [...done].sort()).toEqual(['api', 'db', 'web']);
    for (const name of ['api', 'db']) {
      const before = w.writes.length;
      expect(await w.reconcile(name)).toEqual({});
      expect(w.writes.slice(before)).toEqual([`${name} status ${name}`, `${name} finalizer ${name}`]);
    }
    expect(done.sort()).toEqual(['api', 'db', 'web']); // each release once
    expect(w.events.sort()).toEqual([
      'api Normal UninstallSucceeded',
      'db Normal UninstallSucceeded',
      'web Normal UninstallSucceeded',
    ]);
    expect(w.uninstalls()).toEqual([]); // no helm process
    // The one it declines goes to helm on its own pass, without the others.
    await w.reconcile('hooked');
    expect(w.uninstalls()).toEqual(['hooked']);
    w.ownWritesOnly();
  });

  it('leaves a member that fails to its own pass, which reports it', async () => {
    const done: string[] = [];
    const w = world(
      ['web', 'api', 'db'].map((n) => deleting(n)),
      { queue: { uninstaller: uninstaller(done, { failing: ['api'] }) } },
    );
    expect(await w.reconcile('web')).toEqual({});
    expect(await w.reconcile('db')).toEqual({});
    expect(w.shelf.get('apps', 'api')?.metadata.finalizers).toEqual([FINALIZER]);
    expect(w.condition('api', 'ReleaseFailed')).toBeUndefined();
    await expect(w.reconcile('api')).rejects.toMatchObject({ code: 'UNINSTALL_FAILED' });
    expect(w.condition('api', 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'UninstallError' });
    w.ownWritesOnly();
  });

  it("reports its own release's failure; a member the job uninstalled finishes on its own pass", async () => {
    const done: string[] = [];
    const w = world(
      ['web', 'api'].map((n) => deleting(n)),
      { queue: { uninstaller: uninstaller(done, { failing: ['web'] }) } },
    );
    await expect(w.reconcile('web')).rejects.toMatchObject({ code: 'UNINSTALL_FAILED' });
    expect(w.condition('web', 'ReleaseFailed')).toMatchObject({ reason: 'UninstallError' });
    expect(await w.reconcile('api')).toEqual({});
    expect(w.shelf.get('apps', 'api')).toBeUndefined();
    expect(done).toEqual(['api']);
    w.ownWritesOnly();
  });
});
