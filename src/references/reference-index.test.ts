// ReferenceIndex: which CRs reference which objects, from their annotations; a (kind, namespace) scope starts with
// its first reference and stops with its last; an unchanged annotation changes nothing; a malformed one references
// nothing; a deleted CR is forgotten.
import { describe, expect, it } from 'vitest';
import { ReferenceIndex } from './reference-index.js';

const refs = (...r: { kind: string; name: string }[]) => JSON.stringify(r);
const web = { route: 'nginx-controller', key: 'apps/web' };
const api = { route: 'nginx-controller', key: 'apps/api' };

describe('ReferenceIndex', () => {
  it('maps each referenced object to the CRs that reference it, in their namespace', () => {
    const index = new ReferenceIndex();
    index.set(web, 'apps', refs({ kind: 'Secret', name: 'db' }, { kind: 'ConfigMap', name: 'base' }));
    index.set(api, 'apps', refs({ kind: 'Secret', name: 'db' }));
    expect(index.owners('Secret', 'apps', 'db')).toEqual([web, api]);
    expect(index.owners('ConfigMap', 'apps', 'base')).toEqual([web]);
    expect(index.has('Secret', 'other', 'db')).toBe(false);
    expect(index.has('ConfigMap', 'apps', 'db')).toBe(false);
  });

  it('starts a scope with its first reference and stops it with its last', () => {
    const index = new ReferenceIndex();
    expect(index.set(web, 'apps', refs({ kind: 'Secret', name: 'a' }))).toEqual({
      started: [{ kind: 'Secret', namespace: 'apps' }],
      stopped: [],
    });
    expect(index.set(api, 'apps', refs({ kind: 'Secret', name: 'b' }))).toEqual({ started: [], stopped: [] });
    expect(index.delete(web)).toEqual({ started: [], stopped: [] });
    expect(index.delete(api)).toEqual({ started: [], stopped: [{ kind: 'Secret', namespace: 'apps' }] });
    expect(index.scopes()).toEqual([]);
    expect(index.has('Secret', 'apps', 'b')).toBe(false);
  });

  it('follows an annotation edit: new references start their scope, dropped ones stop theirs, kept ones stay', () => {
    const index = new ReferenceIndex();
    index.set(web, 'apps', refs({ kind: 'Secret', name: 'a' }));
    expect(index.set(web, 'apps', refs({ kind: 'Secret', name: 'b' }, { kind: 'ConfigMap', name: 'c' }))).toEqual({
      started: [{ kind: 'ConfigMap', namespace: 'apps' }],
      stopped: [],
    });
    expect(index.has('Secret', 'apps', 'a')).toBe(false);
    expect(index.owners('Secret', 'apps', 'b')).toEqual([web]);
    expect(index.set(web, 'apps', undefined)).toEqual({
      started: [],
      stopped: [
        { kind: 'Secret', namespace: 'apps' },
        { kind: 'ConfigMap', namespace: 'apps' },
      ],
    });
  });

  it('changes nothing for an unchanged annotation (a status write of the CR)', () => {
    const index = new ReferenceIndex();
    const text = refs({ kind: 'Secret', name: 'a' });
    index.set(web, 'apps', text);
    expect(index.set(web, 'apps', text)).toEqual({ started: [], stopped: [] });
    expect(index.scopes()).toEqual(['Secret/apps']);
  });

  it('takes a malformed annotation as no references (the reconcile reports it)', () => {
    const index = new ReferenceIndex();
    index.set(web, 'apps', refs({ kind: 'Secret', name: 'a' }));
    expect(index.set(web, 'apps', 'kind: [')).toEqual({
      started: [],
      stopped: [{ kind: 'Secret', namespace: 'apps' }],
    });
    expect(index.scopes()).toEqual([]);
  });

  it('takes a cluster-scoped CR (no namespace) as referencing nothing', () => {
    const index = new ReferenceIndex();
    expect(index.set({ route: 'r', key: 'web' }, '', refs({ kind: 'Secret', name: 'a' }))).toEqual({
      started: [],
      stopped: [],
    });
    expect(index.scopes()).toEqual([]);
  });

  it('keeps CRs of different controllers apart', () => {
    const index = new ReferenceIndex();
    const other = { route: 'redis-controller', key: 'apps/web' };
    index.set(web, 'apps', refs({ kind: 'Secret', name: 'a' }));
    index.set(other, 'apps', refs({ kind: 'Secret', name: 'a' }));
    index.delete(web);
    expect(index.owners('Secret', 'apps', 'a')).toEqual([other]);
  });
});
