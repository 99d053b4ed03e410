// The real node's daemons (kubelet, containerd) restarted as an administrator or a package upgrade does: SIGTERM,
// then started again with the same argv, environment and working folder (read from /proc), its log appended and its
// PID file rewritten, so that `hack/testenv.sh down` stops the new one. Used by the node group's cases 1 and 2; only
// ever signals the PID in the plane's own PID file.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../../test/support/until.ts';
import { alive } from '../../kit/plane.ts';

export type Daemon = 'kubelet' | 'containerd';

/** Stops the daemon (SIGTERM; SIGKILL after 15 s), starts it again the same way; resolves once it runs. */
export async function restartDaemon(
  planeDir: string,
  d: Daemon,
  signal: AbortSignal,
): Promise<{ readonly pid: number; readonly downMs: number }> {
  const pidFile = join(planeDir, `${d}.pid`);
  const old = Number(readFileSync(pidFile, 'utf8').trim());
  const argv = readFileSync(`/proc/${old}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');
  const env = Object.fromEntries(
    readFileSync(`/proc/${old}/environ`, 'utf8')
      .split('\0')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const cwd = readlinkSync(`/proc/${old}/cwd`);
  const t0 = performance.now();
  process.kill(old, 'SIGTERM');
  await until(`${d} ${old} to exit`, async () => !alive(old), { timeoutMs: 15_000, everyMs: 50, signal }).catch(() =>
    process.kill(old, 'SIGKILL'),
  );
  await until(`${d} ${old} to exit after SIGKILL`, async () => !alive(old), { timeoutMs: 5_000, everyMs: 50, signal });
  const log = openSync(join(planeDir, 'logs', `${d}.log`), 'a');
  const child = spawn(argv[0] ?? '', argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  child.unref();
  const pid = child.pid ?? 0;
  writeFileSync(pidFile, `${pid}\n`);
  await until(`${d} running again`, async () => alive(pid), { timeoutMs: 5_000, everyMs: 50, signal });
  return { pid, downMs: performance.now() - t0 };
}
