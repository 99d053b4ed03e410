import { describe, expect, it } from 'vitest';
import { parseInitArgs, splitInitArgs } from './flags.js';

describe("init's own flags and those of the create api it runs", () => {
  it('passes the chart and kind flags on, in both forms, with --force, and keeps its own', () => {
    const argv = ['--plugins=helm', '--domain', 'example.com', '--helm-chart', 'charts/x', '--group=web', '--force'];
    expect(splitInitArgs(argv)).toEqual({
      init: ['--plugins=helm', '--domain', 'example.com', '--force'],
      api: ['--helm-chart', 'charts/x', '--group=web', '--force'],
    });
    expect(splitInitArgs(['--kind=Web', '--version', 'v1', '--values-from', '--values=a.yaml']).api).toEqual([
      '--kind=Web',
      '--version',
      'v1',
      '--values-from',
      '--values=a.yaml',
    ]);
  });

  it('runs no create api when none of its flags is given', () => {
    expect(splitInitArgs(['--domain=example.com', '--force'])).toEqual({
      init: ['--domain=example.com', '--force'],
      api: [],
    });
  });

  it('leaves a flag without its value to the parser, which names it', () => {
    expect(splitInitArgs(['--group', '--domain=x.io'])).toEqual({ init: ['--domain=x.io'], api: ['--group'] });
    expect(() => parseInitArgs(['--group=web'], '/p')).toThrow(/unknown flag: --group/);
  });
});
