import { describe, expect, it } from 'vitest';
import { objectKey, splitKey } from './store.js';

describe('objectKey and splitKey', () => {
  it('split a key back into what made it, namespaced or cluster-scoped', () => {
    expect(splitKey(objectKey('apps', 'web'))).toEqual(['apps', 'web']);
    expect(splitKey(objectKey('', 'cluster-thing'))).toEqual(['', 'cluster-thing']);
    expect(splitKey(objectKey(undefined, 'x'))).toEqual(['', 'x']);
  });
});
