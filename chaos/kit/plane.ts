// A local control plane for one chaos scenario (test/support/plane.ts, the one starter), and the faults done to it:
// a component (kube-apiserver, etcd) stopped and started again with the same arguments, read from /proc. Used by
// chaos/run.ts and the scenarios; never touches a process it did not start (PIDs from the plane's own folder).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLocalPlane } from '../../test/support/plane.ts';
import { run } from '../../test/support/run.ts';
import { until } from '../../test/support/until.ts';

export type Component = 'etcd' | 'kube-apiserver';

export interface Plane {
  readonly dir: string;
  readonly kubeconfig: string;
  /** The testenv bin folder (kubectl, helm-v3, helm-v4, …). */
  readonly bin: string;
  /** The API server's https URL from the kubeconfig. */
  readonly server: string;
  pid(c: Component): number;
  /** Stops `c` (SIGTERM, SIGKILL after 10 s), waits `downMs`, starts it again with the same argv; resolves once up. */
  restart(c: Component, downMs: number, signal: AbortSignal): Promise<{ readonly readyMs: number }>;
  stop(): Promise<void>;
}

/** True while a process with this PID exists. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  const { setTimeout: wait } = await import('node:timers/promises');
  await wait(ms, undefined, signal ? { signal } : {});
}

export async function startPlane(o: { readonly root: string; readonly nodes: number | 'real' }): Promise<Plane> {
  const local = await startLocalPlane({ root: o.root, env: { ...process.env, TESTENV_NODES: String(o.nodes) } });
  const { dir, bin, kubeconfig } = local;
  const server = /server:\s*(\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1] ?? '';
  const pid = (c: Component) => Number(readFileSync(join(dir, `${c}.pid`), 'utf8').trim());

  const healthy = async (c: Component) => {
    const url = c === 'etcd' ? etcdHealthUrl(pid('etcd')) : undefined;
    if (url) return (await fetch(url)).ok;
    await run(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, 'get', '--raw', '/readyz'], {});
    return true;
  };

  return {
    dir,
    kubeconfig,
    bin,
    server,
    pid,
    async restart(c, downMs, signal) {
      const old = pid(c);
      const argv = readFileSync(`/proc/${old}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      process.kill(old, 'SIGTERM');
      await until('the old process to exit', async () => !alive(old), { timeoutMs: 10_000, everyMs: 50 }).catch(() =>
        process.kill(old, 'SIGKILL'),
      );
      await until('the old process to exit after SIGKILL', async () => !alive(old), { timeoutMs: 5_000, everyMs: 50 });
      await sleep(downMs, signal);
      const t0 = performance.now();
      const log = openSync(join(dir, 'logs', `${c}.log`), 'a');
      const child = spawn(argv[0] ?? '', argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
      closeSync(log);
      child.unref();
      writeFileSync(join(dir, `${c}.pid`), `${child.pid}\n`);
      await until(`${c} healthy again`, () => healthy(c), { timeoutMs: 60_000, everyMs: 100, signal });
      return { readyMs: performance.now() - t0 };
    },
    async stop() {
      await local.stop().catch(() => undefined);
    },
  };
}

/** etcd's /health on its client URL (from its own argv). */
function etcdHealthUrl(pid: number): string | undefined {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const listen = argv.find((a) => a.startsWith('--listen-client-urls='))?.split('=')[1];
  return listen ? `${listen.split(',')[0]}/health` : undefined;
}
