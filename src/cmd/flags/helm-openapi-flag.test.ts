// --helm-openapi-validation parsing (kept apart from flags.test.ts): the default, true/false, bad values, usage.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { parseRunFlags } from './flags.js';
import { RUN_USAGE } from './run-usage.js';

const ctx = { env: {}, cpus: 4 };

describe('--helm-openapi-validation', () => {
  it('is off by default: helm runs with --disable-openapi-validation', () => {
    expect(parseRunFlags([], ctx).helmOpenApiValidation).toBe(false);
  });

  it('keeps helm’s client-side validation when set', () => {
    expect(parseRunFlags(['--helm-openapi-validation'], ctx).helmOpenApiValidation).toBe(true);
    expect(parseRunFlags(['--helm-openapi-validation=true'], ctx).helmOpenApiValidation).toBe(true);
    expect(parseRunFlags(['--helm-openapi-validation=false'], ctx).helmOpenApiValidation).toBe(false);
  });

  it('fails with CONFIG_INVALID naming the flag for a value that is not a boolean', () => {
    let err: unknown;
    try {
      parseRunFlags(['--helm-openapi-validation=maybe'], ctx);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
    expect((err as Error).message).toContain('--helm-openapi-validation');
  });

  it('is listed in the usage', () => {
    expect(RUN_USAGE).toContain('--helm-openapi-validation');
  });
});
