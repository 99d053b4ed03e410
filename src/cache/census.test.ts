import { describe, expect, it } from 'vitest';
import { InformerCensus } from './census.js';

describe('InformerCensus', () => {
  it('sums the stores of one kind, and shows 0 for a kind whose informers all stopped', () => {
    const census = new InformerCensus();
    let size = 3;
    const a = census.hold({ kind: 'Secret', size: () => size });
    const b = census.hold({ kind: 'Secret', size: () => 2 });
    const c = census.hold({ kind: 'Nginx', size: () => 7 });
    expect(census.objects()).toEqual(
      new Map([
        ['Secret', 5],
        ['Nginx', 7],
      ]),
    );
    size = 4;
    a();
    expect(census.objects().get('Secret')).toBe(2);
    b();
    c();
    expect(census.objects()).toEqual(
      new Map([
        ['Secret', 0],
        ['Nginx', 0],
      ]),
    );
  });

  it('counts watch events by kind and type', () => {
    const census = new InformerCensus();
    census.watchEvent('Nginx', 'ADDED');
    census.watchEvent('Nginx', 'ADDED');
    census.watchEvent('Nginx', 'DELETED');
    census.watchEvent('Secret', 'BOOKMARK');
    expect(census.events()).toEqual([
      { kind: 'Nginx', type: 'ADDED', count: 2 },
      { kind: 'Nginx', type: 'DELETED', count: 1 },
      { kind: 'Secret', type: 'BOOKMARK', count: 1 },
    ]);
  });
});
