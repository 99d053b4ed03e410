import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import { silentLogger } from '../core/logger.js';
import { UninstallFailedError } from './errors.js';
import { IN_PROCESS_PARALLEL, type LaneOutcome, runLanes } from './lanes.js';

describe('runLanes', () => {
  it(`runs at most ${IN_PROCESS_PARALLEL} uninstalls at once and hands on each outcome as it comes, failures too`, async () => {
    let running = 0;
    let most = 0;
    const outcomes: [string, LaneOutcome][] = [];
    const names = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const releases = names.map((name) => releaseRecord({ name }));
    await runLanes({
      releases,
      namespace: 'apps',
      disableHooks: false,
      signal: new AbortController().signal,
      log: silentLogger,
      onOutcome: (i, outcome) => outcomes.push([names[i] as string, outcome]),
      uninstaller: {
        uninstall: async ({ newest }) => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 1));
          running--;
          if (newest.name === 'm3') throw new UninstallFailedError('failed to delete release m3');
          return newest.name === 'm4' ? { declined: 'the release has delete hooks to run' } : 'uninstalled';
        },
      },
    });
    expect(most).toBe(IN_PROCESS_PARALLEL);
    expect(outcomes).toHaveLength(20);
    const by = new Map(outcomes);
    expect(by.get('m3')).toMatchObject({ error: expect.any(UninstallFailedError) });
    expect(by.get('m4')).toEqual({ declined: 'the release has delete hooks to run' });
    expect(names.filter((n) => by.get(n) === 'uninstalled')).toHaveLength(18);
  });
});
