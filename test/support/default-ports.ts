// A lock on the ports a scaffolded project's `make run` binds (helm-operator's defaults, :8080 and :8081), for the
// integration tests that run it (packaging/quickstart.test.ts, packaging/install.test.ts), which the runner may run
// at the same time: a directory made atomically by mkdir under the temp dir, holding its holder's PID; a dead
// holder's lock is taken over. Never touches the ports themselves.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const LOCK = join(tmpdir(), 'helm-operator-ts-default-ports.lock');

function holderAlive(): boolean {
  const pid = Number(readFileSync(join(LOCK, 'pid'), { encoding: 'utf8', flag: 'r' }).trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (polling, up to `timeoutMs`) until this process holds the lock; resolves to its release. */
export async function lockDefaultPorts(timeoutMs = 300_000): Promise<() => void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      let held = true;
      return () => {
        if (held) rmSync(LOCK, { recursive: true, force: true });
        held = false;
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    // The holder writes its PID just after mkdir: a lock without one yet is young, not stale.
    let stale = false;
    try {
      stale = !holderAlive();
    } catch {
      stale = false;
    }
    if (stale) rmSync(LOCK, { recursive: true, force: true });
    else if (performance.now() > deadline) throw new Error(`${LOCK} still held after ${timeoutMs} ms`);
    else await delay(200);
  }
}
