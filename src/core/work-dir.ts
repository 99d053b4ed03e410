// The running operator's private work directory under the temp dir (helm's values files, the post-render pipes, the
// staged charts), with a heartbeat file touched every minute, and the sweep of the directories that killed operators
// left behind: an OOM kill or a SIGKILL runs no cleanup, and a pod's /tmp emptyDir outlives its container, values
// files included. Called by cmd/run.ts only. Never removes a directory without a heartbeat file, or another user's.
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock.js';

/** The names mkdtemp gives `helm-operator-` (six random characters): never `helm-operator-create-api-…` and such. */
const NAME = /^helm-operator-[A-Za-z0-9]{6}$/;
/** The heartbeat file of a running operator's work directory. */
export const HEARTBEAT_FILE = '.alive';
/** How often a running operator touches its heartbeat file. */
export const HEARTBEAT_MS = 60_000;
/** A work directory whose heartbeat is older than this belongs to a dead operator (ten missed beats). */
export const STALE_AFTER_MS = 10 * HEARTBEAT_MS;

export interface WorkDirOptions {
  /** The temp dir (os.tmpdir(), from TMPDIR). */
  readonly tmpDir: string;
  readonly clock: Clock;
  /** @default HEARTBEAT_MS */
  readonly heartbeatMs?: number;
  /** A heartbeat that could not be written (the directory was removed under us, a full disk); never throws. */
  readonly onHeartbeatError?: (err: unknown) => void;
}

export interface WorkDir {
  readonly path: string;
  /** Stops the heartbeat and removes the directory. */
  close(): void;
}

/** Creates the work directory with its heartbeat file and starts the heartbeat (an unref'd timer). */
export function openWorkDir(o: WorkDirOptions): WorkDir {
  const path = mkdtempSync(join(o.tmpDir, 'helm-operator-'));
  const heartbeat = join(path, HEARTBEAT_FILE);
  writeFileSync(heartbeat, '', { mode: 0o600 });
  const every = o.heartbeatMs ?? HEARTBEAT_MS;
  let cancel: (() => void) | undefined;
  const beat = () => {
    try {
      const now = new Date(o.clock.now());
      utimesSync(heartbeat, now, now);
    } catch (err) {
      o.onHeartbeatError?.(err);
    }
    cancel = o.clock.setTimer(every, beat);
  };
  cancel = o.clock.setTimer(every, beat);
  return {
    path,
    close() {
      cancel?.();
      rmSync(path, { recursive: true, force: true });
    },
  };
}

export interface SweptWorkDirs {
  /** The directories removed, with how long their heartbeat had been silent. */
  readonly removed: readonly { readonly path: string; readonly silentMs: number }[];
  /** The stale directories that could not be removed, with why. */
  readonly failed: readonly { readonly path: string; readonly error: unknown }[];
}

export interface SweepOptions {
  readonly tmpDir: string;
  readonly nowMs: number;
  /** @default STALE_AFTER_MS */
  readonly staleAfterMs?: number;
  /** Only directories owned by this uid (process.getuid()); @default any owner */
  readonly uid?: number | undefined;
}

/** Removes the work directories of dead operators: named as ours, owned by `uid`, their heartbeat stale. */
export function sweepStaleWorkDirs(o: SweepOptions): SweptWorkDirs {
  const staleAfter = o.staleAfterMs ?? STALE_AFTER_MS;
  const removed: { path: string; silentMs: number }[] = [];
  const failed: { path: string; error: unknown }[] = [];
  let names: string[];
  try {
    names = readdirSync(o.tmpDir).filter((n) => NAME.test(n));
  } catch (error) {
    return { removed, failed: [{ path: o.tmpDir, error }] };
  }
  for (const name of names) {
    const path = join(o.tmpDir, name);
    const silentMs = silence(path, o.nowMs, o.uid);
    if (silentMs === undefined || silentMs < staleAfter) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push({ path, silentMs });
    } catch (error) {
      failed.push({ path, error });
    }
  }
  return { removed, failed };
}

/** How long the directory's heartbeat has been silent; undefined when it is not ours to judge. */
function silence(path: string, nowMs: number, uid: number | undefined): number | undefined {
  try {
    const dir = statSync(path);
    if (!dir.isDirectory() || (uid !== undefined && dir.uid !== uid)) return undefined;
    return nowMs - statSync(join(path, HEARTBEAT_FILE)).mtimeMs;
  } catch {
    return undefined; // no heartbeat file (not ours, or an older operator's), or gone meanwhile
  }
}
