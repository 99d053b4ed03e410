import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { errFields } from '../core/error-fields.js';
import { ConfigError } from '../core/errors.js';
import { createLogger } from './logger.js';

function capture(encoder: 'json' | 'console' = 'json') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ destination, encoder }), lines };
}

const failure = () => {
  const root = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', body: 'hunter2' });
  return Object.assign(new ConfigError('cannot read the watches file', { code: 'WATCHES_NOT_FOUND', cause: root }), {
    stdout: 'password: hunter2',
  });
};

describe('createLogger', () => {
  it('serializes an Error under err to its type, code, message and cause chain only', () => {
    const { logger, lines } = capture();
    logger.error({ err: failure() }, 'Cannot start');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line.msg).toBe('Cannot start');
    expect(line.err).toEqual({
      type: 'ConfigError',
      code: 'WATCHES_NOT_FOUND',
      message: 'cannot read the watches file',
      cause: { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' },
    });
    expect(lines[0]).not.toContain('hunter2');
    expect(lines[0]).not.toContain('stack');
  });

  it('writes fields already made by errFields unchanged, also through a child logger', () => {
    const { logger, lines } = capture();
    logger.child({ controller: 'web' }).warn({ err: errFields(failure()) }, 'Drift repair failed');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line.err).toEqual(errFields(failure()));
    expect(line.controller).toBe('web');
  });

  it('keeps the message findable with the console encoder', () => {
    const { logger, lines } = capture('console');
    logger.warn({ err: failure() }, 'Post-render failed');
    expect(lines[0]).toContain('Post-render failed');
    expect(lines[0]).toContain('"message":"cannot read the watches file"');
    expect(lines[0]).not.toContain('hunter2');
  });
});
