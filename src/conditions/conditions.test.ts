import { describe, expect, it } from 'vitest';
import { findCondition, removeCondition, rfc3339, setCondition } from './conditions.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const T1 = T0 + 60_000;

describe('setCondition', () => {
  it('appends a new condition with lastTransitionTime = now', () => {
    const c = setCondition([], { type: 'Initialized', status: 'True' }, T0);
    expect(c).toEqual([{ type: 'Initialized', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  describe('when the status does not flip', () => {
    it('keeps lastTransitionTime even though reason and message change', () => {
      const first = setCondition([], { type: 'Deployed', status: 'True', reason: 'InstallSuccessful' }, T0);
      const second = setCondition(
        first,
        { type: 'Deployed', status: 'True', reason: 'UpgradeSuccessful', message: 'n' },
        T1,
      );
      expect(second).toEqual([
        {
          type: 'Deployed',
          status: 'True',
          reason: 'UpgradeSuccessful',
          message: 'n',
          lastTransitionTime: rfc3339(T0),
        },
      ]);
    });
  });

  describe('when the status flips', () => {
    it('moves lastTransitionTime to now', () => {
      const first = setCondition([], { type: 'Deployed', status: 'True', reason: 'InstallSuccessful' }, T0);
      const second = setCondition(first, { type: 'Deployed', status: 'False', reason: 'UninstallSuccessful' }, T1);
      expect(second[0]?.lastTransitionTime).toBe('2026-01-01T00:01:00Z');
    });
  });

  it('replaces in place and keeps the order of the other conditions', () => {
    let c = setCondition([], { type: 'Initialized', status: 'True' }, T0);
    c = setCondition(c, { type: 'Deployed', status: 'True' }, T0);
    c = setCondition(c, { type: 'Initialized', status: 'False' }, T1);
    expect(c.map((x) => `${x.type}=${x.status}`)).toEqual(['Initialized=False', 'Deployed=True']);
  });

  it('never mutates its input', () => {
    const input = Object.freeze(setCondition([], { type: 'Initialized', status: 'True' }, T0));
    expect(() => setCondition(input, { type: 'Initialized', status: 'False' }, T1)).not.toThrow();
    expect(input[0]?.status).toBe('True');
  });
});

describe('removeCondition and findCondition', () => {
  it('removes by type and finds by type', () => {
    let c = setCondition([], { type: 'ReleaseFailed', status: 'True', reason: 'InstallError' }, T0);
    c = setCondition(c, { type: 'Deployed', status: 'False' }, T0);
    expect(findCondition(c, 'ReleaseFailed')?.reason).toBe('InstallError');
    expect(removeCondition(c, 'ReleaseFailed').map((x) => x.type)).toEqual(['Deployed']);
    expect(findCondition(undefined, 'Deployed')).toBeUndefined();
  });
});
