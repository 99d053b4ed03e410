import { describe, expect, it } from 'vitest';
import { helmCommandError, releaseRecord } from '../../../test/fakes/helm.js';
import { silentLogger } from '../../core/logger.js';
import type { HelmClient } from '../../helm/types.js';
import type { StoredRelease } from '../../records/types.js';
import { releaseOptions } from '../inputs/annotations.js';
import type { ActionContext } from './action.js';
import { install } from './install.js';
import { actionFailure, RemediationFailedError } from './remediation-error.js';
import { upgrade } from './upgrade.js';

type Release = StoredRelease['release'];

const rev = (version: number, status: Release['info']['status']): Release =>
  releaseRecord({ version, info: { status }, config: {} });

const helmError = (command: string, stderr: string) => helmCommandError(command, stderr);

/** An ActionContext whose helm fails as told; the failed action leaves a failed revision in `history`. */
function context(fail: { install?: Error; upgrade?: Error; uninstall?: Error; rollback?: Error }) {
  const history: Release[] = [rev(1, 'deployed')];
  const calls: string[] = [];
  const notes: string[] = [];
  const failing = (command: 'install' | 'upgrade') => async (): Promise<never> => {
    calls.push(command);
    history.push(rev(history.length + 1, 'failed'));
    throw fail[command] ?? new Error(`unexpected ${command}`);
  };
  const helm = {
    install: failing('install'),
    upgrade: failing('upgrade'),
    async uninstall() {
      calls.push('uninstall');
      if (fail.uninstall) throw fail.uninstall;
      history.length = 0;
    },
    async rollback() {
      calls.push('rollback');
      if (fail.rollback) throw fail.rollback;
    },
  } satisfies Partial<HelmClient>;
  const controller = new AbortController();
  const ctx: ActionContext = {
    run: {
      name: 'web',
      namespace: 'apps',
      annotations: { periodMs: 0, options: releaseOptions(undefined), paused: false },
      log: silentLogger,
      note: (type, reason) => notes.push(`${type}:${reason}`),
      signal: controller.signal,
    },
    names: [],
    chart: '/charts/nginx',
    values: {},
    labels: {},
    helm: helm as unknown as HelmClient,
    releases: { history: async () => history.map((release) => ({ release, labels: {} })) },
  };
  return { ctx, calls, notes, history, controller };
}

describe('remediation of a failed helm action', () => {
  describe('when the upgrade fails and the rollback fails too', () => {
    it('throws both, keeping the upgrade error as cause and its code, and names the rollback in the message', async () => {
      const upgradeErr = helmError('upgrade', 'Error: UPGRADE FAILED: cannot patch Deployment');
      const rollbackErr = helmError('rollback', 'Error: release web has no 1 version');
      const { ctx, calls, notes } = context({ upgrade: upgradeErr, rollback: rollbackErr });
      const err = await upgrade(ctx, rev(1, 'deployed')).catch((e: unknown) => e);
      expect(calls).toEqual(['upgrade', 'rollback']);
      expect(err).toBeInstanceOf(RemediationFailedError);
      expect(err).toBeInstanceOf(AggregateError);
      expect(err).toMatchObject({ code: 'HELM_COMMAND_FAILED', cause: upgradeErr, errors: [upgradeErr, rollbackErr] });
      expect((err as Error).message).toBe(`${upgradeErr.message}; the rollback failed too: ${rollbackErr.message}`);
      expect(actionFailure(err)).toBe(upgradeErr);
      expect(notes).toEqual(['Warning:UpgradeFailed', 'Warning:RollbackFailed']);
    });
  });

  describe('when the install fails and uninstalling it fails too', () => {
    it('throws both, keeping the install error as cause and its code, and names the uninstall in the message', async () => {
      const installErr = helmError('install', 'Error: INSTALLATION FAILED: admission webhook denied');
      const uninstallErr = new Error('connection refused');
      const { ctx, calls } = context({ install: installErr, uninstall: uninstallErr });
      const err = await install(ctx, { pending: false }).catch((e: unknown) => e);
      expect(calls).toEqual(['install', 'uninstall']);
      expect(err).toMatchObject({ code: 'HELM_COMMAND_FAILED', cause: installErr, errors: [installErr, uninstallErr] });
      expect((err as Error).message).toBe(`${installErr.message}; the uninstall failed too: connection refused`);
    });

    it('keeps no code when the failed action had none', async () => {
      const { ctx } = context({ install: new Error('spawn helm ENOENT'), uninstall: new Error('gone') });
      const err = await install(ctx, { pending: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RemediationFailedError);
      expect((err as RemediationFailedError).code).toBeUndefined();
    });
  });

  describe('when the remediation succeeds', () => {
    it('throws the failed action’s own error, unchanged', async () => {
      const upgradeErr = helmError('upgrade', 'Error: UPGRADE FAILED: boom');
      const { ctx, calls, notes } = context({ upgrade: upgradeErr });
      await expect(upgrade(ctx, rev(1, 'deployed'))).rejects.toBe(upgradeErr);
      expect(calls).toEqual(['upgrade', 'rollback']);
      expect(notes).toEqual(['Warning:UpgradeFailed', 'Normal:RolledBack']);
    });
  });

  describe('when the reconcile was aborted', () => {
    it('attempts no remediation and throws the failed action’s error', async () => {
      const installErr = helmError('install', 'Error: INSTALLATION FAILED: canceled');
      const { ctx, calls, controller } = context({ install: installErr, uninstall: new Error('must not run') });
      controller.abort();
      await expect(install(ctx, { pending: false })).rejects.toBe(installErr);
      expect(calls).toEqual(['install']);
    });
  });
});

describe("helm 4's server-side apply refusing an object that helm 3 applies", () => {
  const refusal = (command: string) =>
    helmError(
      command,
      'Error: INSTALLATION FAILED: server-side apply failed for object apps/web-db apps/v1, Kind=Deployment: failed to create typed patch object (apps/web-db; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="db"].env: duplicate entries for key [name="PGUSER"]',
    );

  /** The context's helm, where install and upgrade refuse server-side apply and succeed client-side. */
  function clientSideOnly() {
    const t = context({});
    const sides: string[] = [];
    const history: Release[] = [rev(1, 'deployed')];
    const applied = (command: 'install' | 'upgrade') => async (p: { clientSideApply?: boolean }) => {
      t.calls.push(command);
      sides.push(p.clientSideApply ? 'client' : 'server');
      if (!p.clientSideApply) throw refusal(command);
      return { ...rev(2, 'deployed'), applyMethod: 'csa' };
    };
    Object.assign(t.ctx.helm, { install: applied('install'), upgrade: applied('upgrade') });
    Object.assign(t.ctx.releases, { history: async () => history.map((release) => ({ release, labels: {} })) });
    return { ...t, sides };
  }

  it('installs again with client-side apply, after removing what the refused install recorded', async () => {
    const t = clientSideOnly();
    await expect(install(t.ctx, { pending: false })).resolves.toMatchObject({ applyMethod: 'csa' });
    expect(t.calls).toEqual(['install', 'uninstall', 'install']);
    expect(t.sides).toEqual(['server', 'client']);
    expect(t.notes).toEqual(['Warning:ServerSideApplyRefused', 'Normal:InstallSucceeded']);
  });

  it('upgrades again with client-side apply instead of rolling back', async () => {
    const t = clientSideOnly();
    await expect(upgrade(t.ctx, { ...rev(1, 'deployed'), applyMethod: 'ssa' })).resolves.toMatchObject({ version: 2 });
    expect(t.calls).toEqual(['upgrade', 'upgrade']);
    expect(t.sides).toEqual(['server', 'client']);
    expect(t.notes).toEqual(['Warning:ServerSideApplyRefused', 'Normal:UpgradeSucceeded']);
  });

  it('leaves an unknown field refused: helm 4 refuses it on purpose, and the install fails once', async () => {
    const unknown = helmError(
      'install',
      'Error: INSTALLATION FAILED: server-side apply failed for object apps/web-svc /v1, Kind=Service: failed to create typed patch object (apps/web-svc; /v1, Kind=Service): .spec.notAField: field not declared in schema',
    );
    const t = context({ install: unknown });
    await expect(install(t.ctx, { pending: false })).rejects.toBe(unknown);
    expect(t.calls).toEqual(['install', 'uninstall']);
    expect(t.notes).toEqual(['Warning:InstallFailed']);
  });

  it('upgrades a release helm 4 applied client-side with client-side apply from the start', async () => {
    const t = clientSideOnly();
    await upgrade(t.ctx, { ...rev(1, 'deployed'), applyMethod: 'csa' });
    expect(t.sides).toEqual(['client']);
  });

  it("upgrades a release helm 3 made (operator-sdk's: no apply method recorded) client-side, as helm 4 requires", async () => {
    const t = clientSideOnly();
    await upgrade(t.ctx, rev(1, 'deployed'));
    expect(t.sides).toEqual(['client']);
  });
});
