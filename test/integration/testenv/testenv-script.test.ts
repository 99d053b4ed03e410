// Proves hack/testenv.sh's lifecycle promises with real processes: a failed start shows the failing component's
// log and leaves nothing running; `down` stops exactly what `up` started (with nodes: kube-scheduler and kwok too);
// the watchdog stops an orphaned plane. Local control plane only: with TEST_CLUSTER=existing|k3s these tests are
// reported as skipped by name.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { CommandFailedError, run } from '../../support/run.js';

const { testenvBin } = inject('cluster');
const TESTENV = resolve(import.meta.dirname, '../../../hack/testenv.sh');
const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;

/** The process exists and has not exited: a zombie (exited, not yet reaped by its parent, here init) is not alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
function pids(dir: string): number[] {
  return COMPONENTS.filter((c) => existsSync(join(dir, `${c}.pid`))).map((c) =>
    Number(readFileSync(join(dir, `${c}.pid`), 'utf8')),
  );
}
function up(dir: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return run('bash', [TESTENV, 'up', dir], { env: { ...process.env, TESTENV_BIN: testenvBin, ...env } });
}
/** Command lines of running processes that mention `dir` (a component of that plane, or anything it left). */
async function processesOf(dir: string): Promise<string[]> {
  return (await run('ps', ['-eo', 'args'])).split('\n').filter((l) => l.includes(dir));
}

describe.skipIf(!testenvBin)('hack/testenv.sh (local control plane only)', () => {
  it('stops exactly the processes it started on `down`, and removes the folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'testenv-lifecycle-'));
    try {
      expect((await up(dir, { TESTENV_KCM: '0', TESTENV_NODES: '0' })).trim()).toBe(dir);
      const started = pids(dir);
      expect(started).toHaveLength(2);
      expect(started.every(alive)).toBe(true);
      await run('bash', [TESTENV, 'down', dir]);
      expect(started.filter(alive)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with nodes, starts kube-scheduler and kwok, has the Nodes Ready on return, and `down` stops all five', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'testenv-nodes-'));
    try {
      await up(dir, { TESTENV_NODES: '2' });
      const started = pids(dir);
      expect(started).toHaveLength(5);
      expect(started.every(alive)).toBe(true);
      expect(readFileSync(join(dir, 'env'), 'utf8')).toMatch(/^TESTENV_NODES=2$/m);
      const ready = await run(join(testenvBin ?? '', 'kubectl'), [
        `--kubeconfig=${join(dir, 'kubeconfig')}`,
        'get',
        'nodes',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}',
      ]);
      expect(ready.trim().split(' ').sort()).toEqual(['testenv-node-1=True', 'testenv-node-2=True']);
      await run('bash', [TESTENV, 'down', dir]);
      expect(started.filter(alive)).toEqual([]);
      expect(await processesOf(dir)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    } finally {
      if (existsSync(dir)) await run('bash', [TESTENV, 'down', dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('when a component fails to start', () => {
    it("shows that component's log tail, exits non-zero and leaves nothing running", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'testenv-fail-'));
      try {
        const err = await up(dir, { TESTENV_APISERVER_EXTRA_ARGS: '--no-such-flag=1' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(CommandFailedError);
        const failure = err as CommandFailedError;
        expect(failure.exitCode).not.toBe(0);
        expect(failure.stderr).toContain('kube-apiserver exited early');
        expect(failure.stderr).toContain('unknown flag: --no-such-flag');
        // The logs are kept for inspection; the PID files are consumed by the cleanup.
        expect(existsSync(join(dir, 'logs/kube-apiserver.log'))).toBe(true);
        expect(pids(dir)).toEqual([]);
        expect(await processesOf(dir)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('kwok failing (here: no stages file) is reported with its log, and nothing is left running', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'testenv-kwok-fail-'));
      try {
        const err = await up(dir, { TESTENV_NODES: '1', TESTENV_KWOK_STAGES: join(dir, 'no-such-stages.yaml') }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(CommandFailedError);
        const failure = err as CommandFailedError;
        expect(failure.stderr).toContain('kwok exited early');
        expect(failure.stderr).toContain('no-such-stages.yaml');
        expect(pids(dir)).toEqual([]);
        expect(await processesOf(dir)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('when the process that owns the plane dies', () => {
    it('the watchdog stops the plane and removes its folder', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'testenv-watchdog-'));
      const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
      try {
        await up(dir, { TESTENV_KCM: '0', TESTENV_NODES: '0', TESTENV_WATCH_PID: String(owner.pid) });
        const started = pids(dir);
        expect(started.every(alive)).toBe(true);
        owner.kill('SIGKILL');
        await expect.poll(() => started.filter(alive), { timeout: 30_000, interval: 250 }).toEqual([]);
        await expect.poll(() => existsSync(dir), { timeout: 10_000 }).toBe(false);
      } finally {
        owner.kill('SIGKILL');
        if (existsSync(dir)) await run('bash', [TESTENV, 'down', dir]).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
