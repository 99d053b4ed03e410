import { describe, expect, it } from 'vitest';
import { parseToolFlags, takeHelmBinary } from './tool.js';

describe('takeHelmBinary', () => {
  it('takes --helm-binary=PATH and --helm-binary PATH out of argv', () => {
    expect(takeHelmBinary('cleanup', ['--yes', '--helm-binary=/h', '--dry-run'], {})).toEqual({
      binary: '/h',
      rest: ['--yes', '--dry-run'],
    });
    expect(takeHelmBinary('cleanup', ['--helm-binary', '/h2', '--yes'], {})).toEqual({
      binary: '/h2',
      rest: ['--yes'],
    });
  });

  it('falls back to HELM_BINARY, then to helm on PATH, as run does', () => {
    expect(takeHelmBinary('cleanup', [], { HELM_BINARY: '/e' }).binary).toBe('/e');
    expect(takeHelmBinary('cleanup', [], { HELM_BINARY: '' }).binary).toBe('helm');
    expect(takeHelmBinary('cleanup', ['--helm-binary=/f'], { HELM_BINARY: '/e' }).binary).toBe('/f');
  });

  it('names the command when the flag has no path', () => {
    expect(() => takeHelmBinary('create api', ['--helm-binary'], {})).toThrow('create api: --helm-binary needs a path');
    expect(() => takeHelmBinary('cleanup', ['--helm-binary='], {})).toThrow('cleanup: --helm-binary needs a path');
  });
});

describe('parseToolFlags', () => {
  it('rejects an unknown flag, listing the known ones', () => {
    expect(() => parseToolFlags('cleanup', ['--nope'], { yes: 'bool' })).toThrow(
      'cleanup: unknown flag "--nope"; flags: --yes',
    );
  });
});
