import { describe, expect, it } from 'vitest';
import {
  type HelmCall,
  type HelmCommand,
  helmCommandError,
  helmWithHistory,
  releaseRecord,
} from '../../test/fakes/helm.js';
import { CrStore, nginxCr, reconcilerOptions } from '../../test/fakes/reconciler.js';
import { RetryLaterError } from '../core/errors.js';
import { FINALIZER } from '../finalizers/finalizers.js';
import type { InstallParams, UpgradeParams } from '../helm/types.js';
import { SHARD_LABEL } from '../leader/shard-label.js';
import { FINGERPRINT_LABEL } from '../records/release-state.js';
import type { StoredRelease } from '../records/types.js';
import type { HelmReconcilerOptions } from './options.js';
import { HelmReconciler } from './reconciler.js';
import type { CustomResource, DependentsPort, HelmAppStatus, Readiness } from './types.js';

function describeCall({ command, params }: HelmCall): string {
  if (command === 'install' || command === 'upgrade') {
    return `${command} ${JSON.stringify((params as InstallParams | UpgradeParams).values)}`;
  }
  if (command === 'rollback') {
    const p = params as HelmCall<'rollback'>['params'];
    return `rollback ${p.revision} force=${p.force}`;
  }
  return command;
}

/** An in-memory cluster: one CR, Helm's release history, and a log of every write in order. */
function world(
  spec: unknown = { replicaCount: 2 },
  manifestOf = (version: number) => `manifest v${version}`,
  dependents?: DependentsPort,
  shardOf?: HelmReconcilerOptions['shardOf'],
) {
  const events: string[] = [];
  const orphanCalls: string[] = [];
  const store = new CrStore(nginxCr(spec), {
    onFinalizers: (finalizers) => events.push(`finalizers=${finalizers.join(',')}`),
    onStatus: (status) =>
      events.push(`status=${status.conditions.map((c) => `${c.type}:${c.status}:${c.reason ?? ''}`).join(',')}`),
  });
  const { helm, history: releases } = helmWithHistory({ notes: 'NOTES for web', manifestOf });
  const history = releases.revisions;
  // install, upgrade and uninstall show in the write log, in order (rollbacks never did).
  helm.onCall(({ command }) => {
    if (command === 'install' || command === 'upgrade' || command === 'uninstall') events.push(`helm ${command}`);
  });
  /** Makes the next `command` fail; `recorded` first adds a failed revision, as helm does past rendering. */
  const failNext = (command: HelmCommand, err: Error, { recorded = false } = {}) =>
    helm.failNext(command, err, (p: InstallParams | UpgradeParams) => {
      if (recorded) releases.recordFailed(p);
    });
  const recorded: string[] = [];
  const reconciler = new HelmReconciler(
    reconcilerOptions({
      watch: { watchDependentResources: true, overrideValues: { 'image.tag': '1.27' } },
      events: { event: (_cr, type, reason) => recorded.push(`${type}:${reason}`) },
      crs: store.access,
      releases: { history: async () => history },
      orphans: async (refs, release, namespace) => {
        orphanCalls.push(
          `${namespace}/${release}: ${refs.map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`).join(' ')}`,
        );
        events.push('delete orphans');
        return refs;
      },
      helm,
      ...(dependents ? { dependents } : {}),
      shardOf,
    }),
  );
  const signal = new AbortController().signal;
  return {
    events,
    failNext,
    recorded,
    /** Every helm call but version, in order, as text. */
    get helmCalls() {
      return helm.calls.filter((c) => c.command !== 'version').map(describeCall);
    },
    orphanCalls,
    history,
    get cr() {
      return store.cr;
    },
    set cr(v) {
      store.cr = v;
    },
    reconcile: () => reconciler.reconcile('apps/web', signal),
  };
}

describe('HelmReconciler', () => {
  describe('when the CR has no release yet', () => {
    it('adds the finalizer before installing, then writes Deployed with the notes and deployedRelease', async () => {
      const w = world();
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(w.events).toEqual([
        `finalizers=${FINALIZER}`,
        'helm install',
        'status=Initialized:True:,Deployed:True:InstallSuccessful',
      ]);
      const status = w.cr?.status as HelmAppStatus | undefined;
      expect(status?.deployedRelease).toEqual({ name: 'web', manifest: 'manifest v1', revision: 1 });
      expect(status?.conditions.find((c) => c.type === 'Deployed')?.message).toBe('NOTES for web');
    });

    it("installs with the spec deep-merged with the watch's overrideValues, and labels the release with the fingerprint", async () => {
      const w = world({ replicaCount: 2, image: { repository: 'nginx' } });
      await w.reconcile();
      expect(w.helmCalls).toEqual(['install {"replicaCount":2,"image":{"repository":"nginx","tag":"1.27"}}']);
      expect(w.history[0]?.labels[FINGERPRINT_LABEL]).toMatch(/^[0-9a-f]{63}$/);
    });
  });

  describe('when sharding is on', () => {
    it("labels the release's records with the CR's shard, and upgrades once when the CR moves to another shard", async () => {
      let shard = '1';
      const w = world(undefined, undefined, undefined, () => shard);
      await w.reconcile();
      expect(w.history[0]?.labels[SHARD_LABEL]).toBe('1');
      await w.reconcile();
      expect(w.helmCalls).toHaveLength(1); // the same shard: nothing to do
      shard = '2';
      await w.reconcile();
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install', 'upgrade']);
      expect(w.history[1]?.labels[SHARD_LABEL]).toBe('2');
      await w.reconcile();
      expect(w.helmCalls).toHaveLength(2);
    });
  });

  describe('when nothing changed since the last release', () => {
    it('spawns no helm process and writes nothing', async () => {
      const w = world();
      await w.reconcile();
      const before = w.events.length;
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(w.helmCalls).toHaveLength(1);
      expect(w.events.slice(before)).toEqual([]);
    });
  });

  describe("when the release's objects become ready", () => {
    it('moves Ready from False to True on a reconcile without helm, naming the object while not ready', async () => {
      let ready: Readiness = {
        status: 'False',
        reason: 'DeploymentNotReady',
        message: 'Deployment apps/web: Available: 0/1',
      };
      const changed: boolean[] = [];
      const w = world(undefined, undefined, {
        async afterDeploy(_cr, _manifest, c) {
          changed.push(c);
          return ready;
        },
        forget: () => {},
      });
      await w.reconcile();
      const status = () => w.cr?.status as HelmAppStatus | undefined;
      expect(status()?.conditions.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'DeploymentNotReady',
        message: 'Deployment apps/web: Available: 0/1',
      });
      ready = { status: 'True', reason: 'AllObjectsReady', message: '3 objects ready' };
      const before = w.events.length;
      await w.reconcile();
      expect(changed).toEqual([true, false]);
      expect(w.helmCalls).toHaveLength(1);
      expect(w.events.slice(before)).toEqual([
        'status=Initialized:True:,Deployed:True:InstallSuccessful,Ready:True:AllObjectsReady',
      ]);
    });

    it('writes no Ready condition when the dependents are not watched', async () => {
      const w = world(undefined, undefined, { afterDeploy: async () => undefined, forget: () => {} });
      await w.reconcile();
      const status = w.cr?.status as HelmAppStatus | undefined;
      expect(status?.conditions.map((c) => c.type)).toEqual(['Initialized', 'Deployed']);
    });
  });

  describe('when the spec changes', () => {
    it('upgrades exactly once and reports UpgradeSuccessful', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, spec: { replicaCount: 3 } };
      await w.reconcile();
      await w.reconcile();
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install', 'upgrade']);
      expect((w.cr?.status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === 'Deployed')?.reason).toBe(
        'UpgradeSuccessful',
      );
      expect(w.history.map((h) => h.release.version)).toEqual([1, 2]);
    });
  });

  describe('when the CR is being deleted', () => {
    it('uninstalls, writes Deployed=False/UninstallSuccessful, then removes the finalizer', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } };
      w.events.length = 0;
      expect(await w.reconcile()).toEqual({});
      expect(w.events).toEqual([
        'helm uninstall',
        'status=Initialized:True:,Deployed:False:UninstallSuccessful',
        'finalizers=',
      ]);
      expect(w.cr).toBeUndefined();
    });
  });

  describe('when the CR is deleted after its release records are gone (its namespace is being deleted)', () => {
    const outside = (v: number) =>
      `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-place-v${v}\n  namespace: apps\n` +
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: web-reader-v${v}\n` +
      `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: elsewhere\n  namespace: kube-system\n`;

    it('deletes what the last deployed revision put outside the namespace, then removes the finalizer', async () => {
      const w = world({ replicaCount: 2 }, outside);
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.history.length = 0;
      w.cr = { ...cr, metadata: { ...cr.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } };
      w.events.length = 0;
      expect(await w.reconcile()).toEqual({});
      expect(w.orphanCalls).toEqual(['apps/web: ClusterRole//web-reader-v1 ConfigMap/kube-system/elsewhere']);
      expect(w.events).toEqual([
        'delete orphans',
        'status=Initialized:True:,Deployed:False:UninstallSuccessful',
        'finalizers=',
      ]);
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install']);
      expect(w.cr).toBeUndefined();
    });

    it('takes helm uninstall finding no release (the records went after they were read) as uninstalled', async () => {
      const w = world({ replicaCount: 2 }, outside);
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.failNext('uninstall', helmError('uninstall', 'Error: uninstall: Release not loaded: web: release: not found'));
      w.cr = { ...cr, metadata: { ...cr.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } };
      w.events.length = 0;
      expect(await w.reconcile()).toEqual({});
      expect(w.orphanCalls).toEqual(['apps/web: ClusterRole//web-reader-v1 ConfigMap/kube-system/elsewhere']);
      expect(w.events).toEqual([
        'helm uninstall',
        'delete orphans',
        'status=Initialized:True:,Deployed:False:UninstallSuccessful',
        'finalizers=',
      ]);
      expect(w.cr).toBeUndefined();
    });

    it('deletes nothing outside when helm could still uninstall the release', async () => {
      const w = world({ replicaCount: 2 }, outside);
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' } };
      await w.reconcile();
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install', 'uninstall']);
      expect(w.orphanCalls).toEqual([]);
    });
  });

  describe('when the spec is not an object', () => {
    it('sets Irreconcilable and does not retry', async () => {
      const w = world(['not', 'a', 'map']);
      await expect(w.reconcile()).rejects.toMatchObject({ code: 'TERMINAL' });
      expect(w.helmCalls).toEqual([]);
      expect(w.events.at(-1)).toBe('status=Initialized:True:,Irreconcilable:True:ReconcileError');
    });
  });
});

const helmError = (command: string, stderr: string) => helmCommandError(command, stderr);

/** A deployed release named like the CR, but of chart "redis". */
const otherChartRelease = (): StoredRelease => ({
  release: releaseRecord({ chart: { name: 'redis', version: '1' }, config: {} }),
  labels: {},
});

const condition = (cr: CustomResource | undefined, type: string) =>
  (cr?.status as HelmAppStatus | undefined)?.conditions.find((c) => c.type === type);

describe('HelmReconciler failure handling', () => {
  describe('when the install fails after helm recorded the release', () => {
    it('uninstalls it, sets ReleaseFailed/InstallError, counts the failure and asks to retry in 10 s', async () => {
      const w = world();
      w.failNext('install', helmError('install', 'Error: INSTALLATION FAILED: admission webhook denied'), {
        recorded: true,
      });
      const err = await w.reconcile().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RetryLaterError);
      expect(err).toMatchObject({ retryAfterMs: 10_000, code: 'HELM_COMMAND_FAILED' });
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install', 'uninstall']);
      expect(condition(w.cr, 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'InstallError' });
      expect(condition(w.cr, 'ReleaseFailed')?.message).toContain('admission webhook denied');
      expect((w.cr?.status as HelmAppStatus | undefined)?.failures).toBe(1);
      expect(w.recorded).toContain('Warning:InstallFailed');
    });

    it('doubles the retry delay with each consecutive failure', async () => {
      const w = world();
      const delays: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        w.failNext('install', helmError('install', 'Error: INSTALLATION FAILED: boom'));
        delays.push(((await w.reconcile().catch((e: unknown) => e)) as RetryLaterError).retryAfterMs);
      }
      expect(delays).toEqual([10_000, 20_000, 40_000]);
      expect((w.cr?.status as HelmAppStatus | undefined)?.failures).toBe(3);
    });
  });

  describe('when the upgrade fails', () => {
    it('rolls back (forced by default) to the last deployed revision and keeps the upgrade error', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, generation: 2 }, spec: { replicaCount: 5 } };
      w.failNext('upgrade', helmError('upgrade', 'Error: UPGRADE FAILED: cannot patch Deployment'), { recorded: true });
      await expect(w.reconcile()).rejects.toBeInstanceOf(RetryLaterError);
      expect(w.helmCalls.slice(1).map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
        expect.stringMatching(/^upgrade/),
        'rollback 1 force=true',
      ]);
      expect(condition(w.cr, 'ReleaseFailed')).toMatchObject({ reason: 'UpgradeError' });
      expect(condition(w.cr, 'ReleaseFailed')?.message).toContain('cannot patch Deployment');
      expect(w.recorded).toEqual(expect.arrayContaining(['Warning:UpgradeFailed', 'Normal:RolledBack']));
    });
  });

  describe('when the upgrade fails and so does the rollback', () => {
    it('keeps the upgrade error and its code, with the rollback error in the chain and the condition', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, generation: 2 }, spec: { replicaCount: 5 } };
      const upgradeErr = helmError('upgrade', 'Error: UPGRADE FAILED: cannot patch Deployment');
      const rollbackErr = helmError('rollback', 'Error: timed out waiting for the condition');
      w.failNext('upgrade', upgradeErr, { recorded: true });
      w.failNext('rollback', rollbackErr);
      const err = await w.reconcile().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RetryLaterError);
      expect(err).toMatchObject({ retryAfterMs: 10_000, code: 'HELM_COMMAND_FAILED' });
      const cause = (err as RetryLaterError).cause;
      expect(cause).toBeInstanceOf(AggregateError);
      expect(cause).toMatchObject({ cause: upgradeErr, errors: [upgradeErr, rollbackErr] });
      expect(condition(w.cr, 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'UpgradeError' });
      const message = condition(w.cr, 'ReleaseFailed')?.message;
      expect(message).toContain('cannot patch Deployment');
      expect(message).toContain('; the rollback failed too: ');
      expect(message).toContain('timed out waiting for the condition');
      expect(w.recorded).toEqual(expect.arrayContaining(['Warning:UpgradeFailed', 'Warning:RollbackFailed']));
    });
  });

  describe('when the install fails and uninstalling it fails too', () => {
    it('keeps the install error and its code, with the uninstall error in the chain and the condition', async () => {
      const w = world();
      w.failNext('install', helmError('install', 'Error: INSTALLATION FAILED: admission webhook denied'), {
        recorded: true,
      });
      w.failNext('uninstall', new Error('connection refused'));
      const err = await w.reconcile().catch((e: unknown) => e);
      expect(err).toMatchObject({ retryAfterMs: 10_000, code: 'HELM_COMMAND_FAILED' });
      expect((err as RetryLaterError).cause).toBeInstanceOf(AggregateError);
      expect(condition(w.cr, 'ReleaseFailed')).toMatchObject({ reason: 'InstallError' });
      expect(condition(w.cr, 'ReleaseFailed')?.message).toMatch(
        /admission webhook denied; the uninstall failed too: connection refused$/,
      );
    });

    it('reports a first install whose chart does not render as ReleaseFailed/InstallError, as operator-sdk', async () => {
      const w = world();
      w.failNext(
        'install',
        helmError('install', 'Error: INSTALLATION FAILED: execution error at (nginx/x.yaml:1:4): bad'),
        { recorded: true },
      );
      w.failNext('uninstall', new Error('connection refused'));
      await expect(w.reconcile()).rejects.toBeInstanceOf(RetryLaterError);
      expect(condition(w.cr, 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'InstallError' });
      expect(condition(w.cr, 'ReleaseFailed')?.message).toContain('the uninstall failed too: connection refused');
      expect(condition(w.cr, 'Irreconcilable')).toBeUndefined();
    });
  });

  describe('when the chart does not render with these values', () => {
    it('on a first install, sets ReleaseFailed/InstallError (as operator-sdk) and has nothing to undo', async () => {
      const w = world();
      w.failNext(
        'install',
        helmError('install', 'Error: INSTALLATION FAILED: execution error at (nginx/templates/x.yaml:1:4): bad'),
      );
      await expect(w.reconcile()).rejects.toBeInstanceOf(RetryLaterError);
      expect(w.helmCalls.map((c) => c.split(' ')[0])).toEqual(['install']);
      expect(condition(w.cr, 'ReleaseFailed')).toMatchObject({ status: 'True', reason: 'InstallError' });
      expect(condition(w.cr, 'Irreconcilable')).toBeUndefined();
    });

    it('once a release is deployed, sets Irreconcilable/ReconcileError (as operator-sdk) and keeps Deployed', async () => {
      const w = world();
      await w.reconcile();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, generation: 2 }, spec: { replicaCount: 5 } };
      w.failNext(
        'upgrade',
        helmError('upgrade', 'Error: UPGRADE FAILED: execution error at (nginx/templates/x.yaml:1:4): bad'),
      );
      await expect(w.reconcile()).rejects.toBeInstanceOf(RetryLaterError);
      expect(condition(w.cr, 'Irreconcilable')).toMatchObject({ status: 'True', reason: 'ReconcileError' });
      expect(condition(w.cr, 'ReleaseFailed')).toBeUndefined();
      expect(condition(w.cr, 'Deployed')).toMatchObject({ status: 'True', reason: 'InstallSuccessful' });
    });
  });

  describe('when the spec changes after failures', () => {
    it('starts the failure count afresh', async () => {
      const w = world();
      w.failNext('install', helmError('install', 'Error: INSTALLATION FAILED: boom'));
      await w.reconcile().catch(() => undefined);
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, generation: 2 }, spec: { replicaCount: 1 } };
      w.failNext('install', helmError('install', 'Error: INSTALLATION FAILED: boom'));
      const err = (await w.reconcile().catch((e: unknown) => e)) as RetryLaterError;
      expect(err.retryAfterMs).toBe(10_000);
      expect((w.cr?.status as HelmAppStatus | undefined)?.failures).toBe(1);
      expect((w.cr?.status as HelmAppStatus | undefined)?.observedGeneration).toBe(2);
    });
  });

  describe('when the latest revision is stuck in pending-upgrade', () => {
    it('rolls back to the deployed revision, says so in an event, and then reconciles', async () => {
      const w = world();
      await w.reconcile();
      const first = w.history[0];
      if (!first) throw new Error('no release');
      w.history.push({ release: { ...first.release, version: 2, info: { status: 'pending-upgrade' } }, labels: {} });
      await w.reconcile();
      expect(w.helmCalls[1]).toBe('rollback 1 force=true');
      expect(w.recorded).toContain('Warning:ReleaseRecovered');
      expect(condition(w.cr, 'Deployed')?.status).toBe('True');
    });
  });

  describe('when a release of that name belongs to another chart', () => {
    it('leaves it alone and sets Irreconcilable', async () => {
      const w = world();
      w.history.push(otherChartRelease());
      expect(await w.reconcile()).toEqual({ requeueAfterMs: 60_000 });
      expect(w.helmCalls).toEqual([]);
      expect(condition(w.cr, 'Irreconcilable')?.message).toContain('belongs to chart "redis"');
    });
  });

  describe('when the CR name is longer than 53 characters', () => {
    it('sets Irreconcilable with a clear message and does not retry', async () => {
      const w = world();
      const cr = w.cr;
      if (!cr) throw new Error('CR vanished');
      w.cr = { ...cr, metadata: { ...cr.metadata, name: 'x'.repeat(54) } };
      await expect(w.reconcile()).rejects.toMatchObject({ code: 'TERMINAL' });
      expect(w.helmCalls).toEqual([]);
      expect(condition(w.cr, 'Irreconcilable')?.message).toContain('Helm allows at most 53');
    });
  });
});

describe('HelmReconciler deletion of a CR whose release name is taken by another chart', () => {
  it('leaves that release installed and still removes the finalizer', async () => {
    const w = world();
    w.history.push(otherChartRelease());
    const cr = w.cr;
    if (!cr) throw new Error('CR vanished');
    w.cr = { ...cr, metadata: { ...cr.metadata, finalizers: [FINALIZER], deletionTimestamp: '2026-01-01T00:05:00Z' } };
    expect(await w.reconcile()).toEqual({});
    expect(w.helmCalls).toEqual([]);
    expect(w.history).toHaveLength(1);
    expect(w.recorded).toContain('Warning:ReleaseConflict');
    expect(w.cr).toBeUndefined();
  });
});
