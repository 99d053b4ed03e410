import { describe, expect, it } from 'vitest';
import { RetryLaterError, TerminalError } from '../core/errors.js';
import { queueAction, resultLabel, type Settled } from './contract.js';

const cases: [string, Settled, ReturnType<typeof queueAction>, ReturnType<typeof resultLabel>][] = [
  ['success', { ok: true, outcome: {} }, { kind: 'forget' }, 'success'],
  ['success, requeue 0', { ok: true, outcome: { requeueAfterMs: 0 } }, { kind: 'forget' }, 'success'],
  [
    'success, requeue later',
    { ok: true, outcome: { requeueAfterMs: 60_000 } },
    { kind: 'forget-then-add-after', ms: 60_000 },
    'requeue_after',
  ],
  ['an error', { ok: false, error: new Error('x') }, { kind: 'add-rate-limited' }, 'error'],
  [
    'a RetryLaterError',
    { ok: false, error: new RetryLaterError('busy', 5_000) },
    { kind: 'add-after', ms: 5_000 },
    'error',
  ],
  ['a TerminalError', { ok: false, error: new TerminalError('no') }, { kind: 'forget' }, 'error'],
];

describe('the requeue rules', () => {
  it.each(cases)('%s', (_label, settled, action, result) => {
    expect(queueAction(settled)).toEqual(action);
    expect(resultLabel(settled)).toBe(result);
  });
});
