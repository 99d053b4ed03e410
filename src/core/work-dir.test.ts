import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { HEARTBEAT_FILE, HEARTBEAT_MS, openWorkDir, STALE_AFTER_MS, sweepStaleWorkDirs } from './work-dir.js';

describe('the work directory', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'work-dir-test-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** A directory as a dead operator left it: its heartbeat last touched `agoMs` before `now`. */
  const leftBehind = (name: string, nowMs: number, agoMs: number | undefined) => {
    const dir = join(tmp, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'values-1.yaml'), '{"password":"x"}');
    if (agoMs !== undefined) {
      writeFileSync(join(dir, HEARTBEAT_FILE), '');
      const at = new Date(nowMs - agoMs);
      utimesSync(join(dir, HEARTBEAT_FILE), at, at);
    }
    return dir;
  };

  it('is created with a heartbeat file that a minute later carries the clock time, and is removed on close', () => {
    const clock = new FakeClock({ nowMs: Date.parse('2026-01-01T00:00:00Z') });
    const wd = openWorkDir({ tmpDir: tmp, clock });
    expect(wd.path.startsWith(join(tmp, 'helm-operator-'))).toBe(true);
    clock.advance(HEARTBEAT_MS);
    expect(statSync(join(wd.path, HEARTBEAT_FILE)).mtimeMs).toBe(clock.now());
    clock.advance(HEARTBEAT_MS);
    expect(statSync(join(wd.path, HEARTBEAT_FILE)).mtimeMs).toBe(clock.now());
    wd.close();
    expect(existsSync(wd.path)).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports a heartbeat it could not write and keeps beating', () => {
    const clock = new FakeClock({ nowMs: Date.now() });
    const errors: unknown[] = [];
    const wd = openWorkDir({ tmpDir: tmp, clock, onHeartbeatError: (e) => errors.push(e) });
    rmSync(wd.path, { recursive: true });
    clock.advance(HEARTBEAT_MS);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ENOENT' });
    expect(clock.pendingTimers()).toBe(1);
    wd.close();
  });

  it("removes only our directories whose heartbeat is older than ten minutes, never a live one's or another's", () => {
    const now = Date.now();
    const dead = leftBehind('helm-operator-AbC123', now, STALE_AFTER_MS + 1);
    const live = leftBehind('helm-operator-XyZ789', now, HEARTBEAT_MS);
    const noHeartbeat = leftBehind('helm-operator-old000', now, undefined);
    const otherCommand = leftBehind('helm-operator-create-api-Q1w2E3', now, STALE_AFTER_MS * 2);
    const swept = sweepStaleWorkDirs({ tmpDir: tmp, nowMs: now });
    expect(swept.removed).toEqual([{ path: dead, silentMs: STALE_AFTER_MS + 1 }]);
    expect(swept.failed).toEqual([]);
    expect(existsSync(dead)).toBe(false);
    for (const kept of [live, noHeartbeat, otherCommand]) expect(existsSync(kept)).toBe(true);
  });

  it('leaves a stale directory owned by another user alone', () => {
    const now = Date.now();
    const dead = leftBehind('helm-operator-AbC123', now, STALE_AFTER_MS * 3);
    const otherUid = statSync(dead).uid + 1;
    expect(sweepStaleWorkDirs({ tmpDir: tmp, nowMs: now, uid: otherUid }).removed).toEqual([]);
    expect(existsSync(dead)).toBe(true);
  });

  it('reports a temp dir it cannot read instead of throwing', () => {
    const missing = join(tmp, 'nope');
    const swept = sweepStaleWorkDirs({ tmpDir: missing, nowMs: Date.now() });
    expect(swept.removed).toEqual([]);
    expect(swept.failed).toEqual([{ path: missing, error: expect.objectContaining({ code: 'ENOENT' }) }]);
  });
});
