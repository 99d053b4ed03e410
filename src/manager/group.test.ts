import { describe, expect, it } from 'vitest';
import { runGroup } from './group.js';

const untilAborted = (stopped: string[], name: string) => (signal: AbortSignal) =>
  new Promise<void>((resolve) =>
    signal.addEventListener(
      'abort',
      () => {
        stopped.push(name);
        resolve();
      },
      { once: true },
    ),
  );

describe('runGroup', () => {
  it('runs every part until the signal aborts', async () => {
    const stop = new AbortController();
    const stopped: string[] = [];
    const run = runGroup([untilAborted(stopped, 'a'), untilAborted(stopped, 'b')], stop.signal);
    stop.abort();
    await run;
    expect(stopped).toEqual(['a', 'b']);
  });

  it('stops the other parts when one fails, then rethrows the failure', async () => {
    const stopped: string[] = [];
    const boom = new Error('boom');
    const failing = async () => {
      throw boom;
    };
    const signal = new AbortController().signal;
    await expect(runGroup([untilAborted(stopped, 'a'), failing], signal)).rejects.toBe(boom);
    expect(stopped).toEqual(['a']);
  });
});
