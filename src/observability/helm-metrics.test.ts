import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeHelm, HELM_V3 } from '../../test/fakes/helm.js';
import { recordingLogger } from '../../test/fakes/logger.js';
import { chain } from '../helm/middleware.js';
import { HelmRuns, helmMetrics, metricAndDebugLog } from './helm-metrics.js';

const signal = new AbortController().signal;

describe('helmMetrics', () => {
  it('times each call by action and result, and rethrows what helm threw', async () => {
    const helm = new FakeHelm().on('version', () => HELM_V3).failNext('uninstall', new Error('boom'));
    const seen: string[] = [];
    const timed = chain(helm, [helmMetrics((action, result) => seen.push(`${action} ${result}`))]);
    await timed.version({ signal });
    await expect(timed.uninstall({ release: 'web', namespace: 'apps', signal })).rejects.toThrow('boom');
    expect(seen).toEqual(['version success', 'uninstall error']);
  });
});

describe('HelmRuns', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('counts the release commands running past their threshold (a quarter of a short timeout, else 30 s)', async () => {
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const runs = new HelmRuns();
    let finish: () => void = () => undefined;
    const helm = new FakeHelm()
      .on('version', () => HELM_V3)
      .on('install', () => new Promise((resolve) => (finish = () => resolve({} as never))))
      .on('uninstall', () => undefined);
    const timed = chain(helm, [helmMetrics(() => undefined, runs)]);
    const install = timed.install({
      release: 'web',
      namespace: 'apps',
      chart: 'c',
      values: {},
      timeoutMs: 20_000,
      signal,
    });
    const zero = { install: 0, upgrade: 0, 'dry-run': 0, uninstall: 0, rollback: 0 };
    now = 4_999;
    expect(runs.stillRunning()).toEqual(zero);
    now = 5_000;
    expect(runs.stillRunning()).toEqual({ ...zero, install: 1 });
    finish();
    await install;
    expect(runs.stillRunning()).toEqual(zero);
    await timed.uninstall({ release: 'web', namespace: 'apps', signal });
    expect(runs.stillRunning(now + 60_000)).toEqual(zero);
  });
});

describe('metricAndDebugLog', () => {
  it('records each helm run in the metric and logs it at debug as "Helm finished"', () => {
    const seen: string[] = [];
    const log = recordingLogger();
    const observe = metricAndDebugLog({ helmExec: (a, r, s) => seen.push(`${a} ${r} ${s}`) }, log.logger);
    observe('install', 'success', 0.25);
    expect(seen).toEqual(['install success 0.25']);
    expect(log.lines).toEqual([
      { level: 'debug', msg: 'Helm finished', obj: { action: 'install', result: 'success', seconds: 0.25 } },
    ]);
  });
});
