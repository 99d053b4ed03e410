import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcessFailure, runProcess, stopRunningProcesses } from './process.js';

const env = { PATH: '/usr/bin:/bin' };
const options = (over: Partial<Parameters<typeof runProcess>[2]> = {}) => ({
  env,
  signal: AbortSignal.timeout(20_000),
  timeoutMs: 20_000,
  killGraceMs: 200,
  ...over,
});
const failure = async (p: Promise<unknown>): Promise<ProcessFailure> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProcessFailure);
  return err as ProcessFailure;
};

describe('runProcess', { timeout: 20_000 }, () => {
  it('returns stdout and stderr without their final newline, with exactly the environment it is given', async () => {
    const out = await runProcess('/bin/sh', ['-c', 'echo "$PATH|$HOME|"; echo warn >&2'], options());
    expect(out).toEqual({ stdout: '/usr/bin:/bin||', stderr: 'warn' });
  });

  it('hands each whole stdout line to onStdoutLine as it arrives, a line split over writes once it is whole', async () => {
    const seen: string[] = [];
    // The second line arrives in two writes; the process then waits until the test has seen the first two lines.
    const script =
      'printf "one\\ntw"; sleep 0.1; printf "o\\r\\n"; while [ ! -e "$1" ]; do sleep 0.02; done; printf "three"';
    const flag = join(tmpdir(), `process-test-${process.pid}-${Date.now()}`);
    const run = runProcess('/bin/sh', ['-c', script, 'sh', flag], options({ onStdoutLine: (l) => seen.push(l) }));
    await expect.poll(() => seen).toEqual(['one', 'two']);
    await writeFile(flag, '');
    expect(await run).toEqual({ stdout: 'one\ntwo\r\nthree', stderr: '' });
    expect(seen).toEqual(['one', 'two']); // a last line without a newline is not whole
    await rm(flag, { force: true });
  });

  it("runs the child as the leader of a process group of its own, so that a signal to the operator's group misses it", async () => {
    const out = await runProcess('/bin/sh', ['-c', 'echo $$; cut -d" " -f5 /proc/$$/stat'], options());
    const [pid, pgid] = out.stdout.split('\n');
    expect(pgid).toBe(pid);
    expect(Number(pgid)).not.toBe(process.pid);
  });

  it('fails with the exit code and the output when the process exits non-zero', async () => {
    const err = await failure(runProcess('/bin/sh', ['-c', 'echo partial; echo bad >&2; exit 3'], options()));
    expect(err).toMatchObject({ exitCode: 3, signal: undefined, stdout: 'partial', stderr: 'bad', canceled: false });
    expect(err.message).toBe('Command failed with exit code 3: /bin/sh -c echo partial; echo bad >&2; exit 3');
  });

  it('fails with the spawn error code and no exit code when the binary does not exist', async () => {
    const err = await failure(runProcess('/nonexistent/helm', ['version'], options()));
    expect(err).toMatchObject({ code: 'ENOENT', exitCode: undefined });
  });

  it('sends SIGTERM at the timeout and says it timed out', async () => {
    const err = await failure(runProcess('/bin/sleep', ['10'], options({ timeoutMs: 100 })));
    expect(err).toMatchObject({ timedOut: true, canceled: false, signal: 'SIGTERM', forceKilled: false });
  });

  it('sends SIGKILL after the grace period to a process that ignores SIGTERM when aborted', async () => {
    const abort = new AbortController();
    const p = runProcess(
      '/bin/sh',
      // The sleep must not hold the output pipes (they close only when every holder is gone), and ends by itself.
      ['-c', 'trap "" TERM; sleep 1 >/dev/null 2>&1 & wait'],
      options({ signal: abort.signal }),
    );
    setTimeout(() => abort.abort(new Error('stop')), 200);
    const err = await failure(p);
    expect(err).toMatchObject({ canceled: true, timedOut: false, signal: 'SIGKILL', forceKilled: true });
  });

  it('does not start work for an already aborted signal: the process is stopped at once', async () => {
    const abort = new AbortController();
    abort.abort(new Error('stop'));
    const started = performance.now();
    const err = await failure(runProcess('/bin/sleep', ['10'], options({ signal: abort.signal })));
    expect(err.canceled).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('stops every process still running when asked (the operator exiting at once)', async () => {
    const p = failure(runProcess('/bin/sleep', ['10'], options()));
    stopRunningProcesses(); // spawn has returned: the child has its pid, and SIGTERM ends it started or not
    expect(await p).toMatchObject({ signal: 'SIGTERM', canceled: false, timedOut: false });
  });
});
