import { describe, expect, it } from 'vitest';
import { overlaps } from './shard-roll.js';

describe('overlaps', () => {
  it('finds one key reconciled by two replicas at once, and not the same replica twice or one after the other', () => {
    const byKey = new Map([
      [
        'ns/a',
        [
          { replica: 0, start: 100, end: 200 },
          { replica: 1, start: 150, end: 250 },
        ],
      ],
      [
        'ns/b',
        [
          { replica: 0, start: 100, end: 200 },
          { replica: 1, start: 198, end: 300 },
          { replica: 1, start: 300, end: 400 },
        ],
      ],
    ]);
    expect(overlaps(byKey)).toEqual(['ns/a: replica 0 100…200, replica 1 150…250']);
  });
});
