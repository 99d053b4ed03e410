import { describe, expect, it } from 'vitest';
import { errFields, MAX_ERR_DEPTH, MAX_ERRORS, MAX_MESSAGE_CHARS } from './error-fields.js';
import { ConfigError, RetryLaterError } from './errors.js';

describe('errFields', () => {
  it('keeps the type, code and message and the whole cause chain', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const middle = new ConfigError('cannot list the CRDs', { code: 'CRD_NOT_FOUND', cause: root });
    const top = new RetryLaterError('default/web: cannot list the CRDs', 5_000, {
      code: 'CRD_NOT_FOUND',
      cause: middle,
    });

    expect(errFields(top)).toEqual({
      type: 'RetryLaterError',
      code: 'CRD_NOT_FOUND',
      message: 'default/web: cannot list the CRDs',
      cause: {
        type: 'ConfigError',
        code: 'CRD_NOT_FOUND',
        message: 'cannot list the CRDs',
        cause: { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:6443' },
      },
    });
  });

  it('never copies other properties of an error: they may hold values', () => {
    const failure = Object.assign(new Error('Command failed with exit code 1: helm upgrade'), {
      stdout: 'apiVersion: v1\nkind: Secret\ndata:\n  password: aHVudGVyMg==',
      stderr: 'Error: UPGRADE FAILED',
      command: 'helm upgrade web ./chart --values /tmp/values.yaml',
      body: { data: { password: 'hunter2' } },
      config: { password: 'hunter2' },
    });
    const err = Object.assign(new Error('helm upgrade failed', { cause: failure }), { values: { token: 'hunter2' } });

    const logged = JSON.stringify(errFields(err));
    expect(logged).not.toContain('hunter2');
    expect(logged).not.toContain('aHVudGVyMg');
    expect(logged).not.toContain('/tmp/values.yaml');
    expect(logged).not.toContain('stack');
    expect(Object.keys(errFields(err))).toEqual(['message', 'type', 'cause']);
    expect(Object.keys(errFields(err).cause ?? {})).toEqual(['message', 'type']);
  });

  it('keeps only short codes, as strings or numbers', () => {
    expect(errFields(Object.assign(new Error('conflict'), { code: 409 })).code).toBe(409);
    expect(errFields(Object.assign(new Error('x'), { code: 'secret value with spaces' })).code).toBeUndefined();
    expect(errFields(Object.assign(new Error('x'), { code: { nested: 'hunter2' } })).code).toBeUndefined();
    expect(errFields(Object.assign(new Error('x'), { code: 'A'.repeat(65) })).code).toBeUndefined();
  });

  it('shows a thrown non-error as its text, as String() does', () => {
    expect(errFields('boom')).toEqual({ message: 'boom' });
    expect(errFields(undefined)).toEqual({ message: 'undefined' });
    expect(errFields({ password: 'hunter2' })).toEqual({ message: '[object Object]' });
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    expect(errFields(hostile)).toEqual({ message: 'object' });
  });

  it('keeps only the message of an error-like object', () => {
    expect(errFields({ message: 'status 500', code: 'X', body: 'hunter2' })).toEqual({
      message: 'status 500',
      code: 'X',
    });
  });

  it("shows an AggregateError's errors, each with its own chain, at most MAX_ERRORS of them", () => {
    const rollback = new Error('rollback failed', { cause: new Error('helm rollback exited 1') });
    const err = new AggregateError([new Error('upgrade failed'), rollback], 'upgrade and rollback failed');
    expect(errFields(err)).toEqual({
      type: 'AggregateError',
      message: 'upgrade and rollback failed',
      errors: [
        { type: 'Error', message: 'upgrade failed' },
        { type: 'Error', message: 'rollback failed', cause: { type: 'Error', message: 'helm rollback exited 1' } },
      ],
    });
    const many = new AggregateError(
      Array.from({ length: MAX_ERRORS + 5 }, (_, i) => new Error(`e${i}`)),
      'many',
    );
    expect(errFields(many).errors).toHaveLength(MAX_ERRORS);
  });

  it('does not show the errors property of an error that is not an AggregateError', () => {
    const err = Object.assign(new Error('invalid'), { errors: ['password: hunter2'] });
    expect(errFields(err)).toEqual({ type: 'Error', message: 'invalid' });
  });

  it('stops at a cycle and marks where', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(errFields(a)).toEqual({
      type: 'Error',
      message: 'a',
      cause: { type: 'Error', message: 'b', truncated: 'cycle' },
    });
    const self = new Error('self');
    (self as { cause?: unknown }).cause = self;
    expect(errFields(self)).toEqual({ type: 'Error', message: 'self', truncated: 'cycle' });
  });

  it('stops at MAX_ERR_DEPTH errors and marks where', () => {
    let err: Error = new Error('e0');
    for (let i = 1; i < MAX_ERR_DEPTH + 5; i++) err = new Error(`e${i}`, { cause: err });
    let depth = 1;
    let node = errFields(err);
    while (node.cause) {
      node = node.cause;
      depth += 1;
    }
    expect(depth).toBe(MAX_ERR_DEPTH);
    expect(node.truncated).toBe('depth');
  });

  it('cuts a message longer than MAX_MESSAGE_CHARS', () => {
    const { message } = errFields(new Error('x'.repeat(MAX_MESSAGE_CHARS + 100)));
    expect(message).toHaveLength(MAX_MESSAGE_CHARS + 1);
    expect(message.endsWith('…')).toBe(true);
  });
});
