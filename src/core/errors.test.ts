import { describe, expect, it } from 'vitest';
import { ConfigError, RetryLaterError, TerminalError } from './errors.js';

describe('the error tree', () => {
  it('gives ConfigError CONFIG_INVALID unless a configuration code is named', () => {
    expect(new ConfigError('bad flag').code).toBe('CONFIG_INVALID');
    expect(new ConfigError('no watches', { code: 'WATCHES_NOT_FOUND' }).code).toBe('WATCHES_NOT_FOUND');
    // @ts-expect-error: ConfigError takes configuration codes only (typecheck fails if it took any string).
    expect(new ConfigError('x', { code: 'HELM_COMMAND_FAILED' }).code).toBe('HELM_COMMAND_FAILED');
    // @ts-expect-error: and no arbitrary string.
    expect(new ConfigError('x', { code: 'WHATEVER' }).code).toBe('WHATEVER');
  });

  it('keeps the cause and names each error by its class', () => {
    const cause = new Error('root');
    const err = new RetryLaterError('busy', 5_000, { cause, code: 'HELM_COMMAND_FAILED' });
    expect(err).toMatchObject({ name: 'RetryLaterError', code: 'HELM_COMMAND_FAILED', retryAfterMs: 5_000, cause });
    expect(new RetryLaterError('busy', 1).code).toBe('RETRY_LATER');
    expect(new TerminalError('no').name).toBe('TerminalError');
  });
});
