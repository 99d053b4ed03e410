// --status-manifest parsing (kept apart from flags.test.ts): the default, each mode, and bad values.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { parseRunFlags } from './flags.js';
import { RUN_USAGE } from './run-usage.js';

const ctx = { env: {}, cpus: 4 };

describe('--status-manifest', () => {
  it('defaults to redacted', () => {
    expect(parseRunFlags([], ctx).statusManifest).toBe('redacted');
  });

  it('accepts full, redacted and none, as --x=v and --x v', () => {
    expect(parseRunFlags(['--status-manifest=full'], ctx).statusManifest).toBe('full');
    expect(parseRunFlags(['--status-manifest', 'none'], ctx).statusManifest).toBe('none');
    expect(parseRunFlags(['--status-manifest=redacted'], ctx).statusManifest).toBe('redacted');
  });

  it.each(['', 'FULL', 'off', 'true'])('rejects %j with CONFIG_INVALID naming the flag', (value) => {
    let err: unknown;
    try {
      parseRunFlags([`--status-manifest=${value}`], ctx);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('CONFIG_INVALID');
    expect((err as ConfigError).message).toBe(
      `--status-manifest: ${JSON.stringify(value)} must be full, redacted or none`,
    );
  });

  it('needs a value', () => {
    expect(() => parseRunFlags(['--status-manifest'], ctx)).toThrow('flag needs an argument: --status-manifest');
  });

  it('is in the usage text', () => {
    expect(RUN_USAGE).toContain('--status-manifest');
  });
});
