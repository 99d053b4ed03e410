// A killed operator's work directory, values file included, does not outlive the next operator's start: an OOM kill
// or a SIGKILL runs no cleanup, and a pod's /tmp emptyDir outlives its container. The first operator is killed while
// helm waits on a pre-install hook (test/fixtures/charts/slow-hook), so the CR's values are on disk; once its
// heartbeat is ten minutes old, the next operator with the same TMPDIR removes the directory and finishes the install.
// A running operator's directory is never removed.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeHookJobs, ROOT } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const SLOW_HOOK_CHART = join(ROOT, 'test/fixtures/charts/slow-hook');
const ELEVEN_MINUTES_MS = 11 * 60_000;

describe("a killed operator's work directory", () => {
  const f = useOperatorFixture({
    kinds: [{ kind: 'WorkDir', chart: SLOW_HOOK_CHART }],
    namespaces: ['op-work-dir'],
    start: false,
  });
  // The temp dir the operators of this test share, as the containers of one pod share its /tmp emptyDir.
  let shared = '';
  beforeAll(() => {
    shared = mkdtempSync(join(tmpdir(), 'work-dir-test-'));
  });
  afterAll(() => rmSync(shared, { recursive: true, force: true }));
  const start = () => f.start({ env: { TMPDIR: shared } });
  const workDirs = () => readdirSync(shared).filter((d) => d.startsWith('helm-operator-'));
  const valuesFiles = (dir: string) => readdirSync(join(shared, dir)).filter((n) => /^values-.*\.yaml$/.test(n));

  it('is removed, values file and all, by the next operator, which finishes the install', async () => {
    const first = start();
    await f.create('held', { hook: true, data: 'kept-only-while-helm-runs' });
    // helm waits on the hook Job, holding the values file it was given.
    await expect.poll(() => workDirs().flatMap(valuesFiles), POLL).toHaveLength(1);
    const [dead = ''] = workDirs();
    await first.kill();
    expect(valuesFiles(dead)).toHaveLength(1);

    // Ten missed heartbeats later (its heartbeat file aged rather than waited for).
    const aged = new Date(Date.now() - ELEVEN_MINUTES_MS);
    utimesSync(join(shared, dead, '.alive'), aged, aged);
    const second = start();
    await expect.poll(() => existsSync(join(shared, dead)), POLL).toBe(false);
    expect(second.output()).toMatch(
      new RegExp(
        `"dir":"${join(shared, dead)}","silentSeconds":(66\\d|67\\d),"msg":"Removed a dead operator's work directory"`,
      ),
    );
    const [alive = ''] = workDirs();
    expect(workDirs()).toEqual([alive]);
    expect(Date.now() - statSync(join(shared, alive, '.alive')).mtimeMs).toBeLessThan(ELEVEN_MINUTES_MS);

    // The second operator takes the interrupted install over; its hook Job (helm may recreate it) is completed.
    const deployed = async () => {
      await completeHookJobs(f.kube, f.ns);
      return (await f.crs.condition('held', 'Deployed'))?.status;
    };
    await expect.poll(deployed, POLL).toBe('True');

    // A third operator leaves the running second one's directory alone.
    const third = start();
    await expect.poll(() => workDirs().length, POLL).toBe(2);
    expect(workDirs()).toContain(alive);
    await third.stop();
    expect(workDirs()).toEqual([alive]);
    expect(second.output()).not.toContain('Could not');
  });
});
