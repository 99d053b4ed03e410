import { describe, expect, it } from 'vitest';
import { FINALIZER, hasOurFinalizer, LEGACY_FINALIZER, withFinalizer, withoutFinalizers } from './finalizers.js';

describe('finalizers', () => {
  it.each([
    ['none', undefined, false],
    ['someone else’s', ['x/y'], false],
    ['ours', [FINALIZER], true],
    ['the legacy one', [LEGACY_FINALIZER], true],
  ])('hasOurFinalizer with %s is %s', (_label, list, expected) => {
    expect(hasOurFinalizer(list)).toBe(expected);
  });

  it('adds ours after the others, and nothing when present', () => {
    expect(withFinalizer(['x/y'])).toEqual(['x/y', FINALIZER]);
    expect(withFinalizer([LEGACY_FINALIZER])).toBeUndefined();
  });

  it('removes both ours and the legacy one, keeping the others', () => {
    expect(withoutFinalizers(['a', FINALIZER, LEGACY_FINALIZER, 'b'])).toEqual(['a', 'b']);
    expect(withoutFinalizers(['a'])).toBeUndefined();
  });
});
