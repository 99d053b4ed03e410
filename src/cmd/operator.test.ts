import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../finalizers/finalizers.js';
import type { KubeObject } from '../kube/types.js';
import { changedBeyondStatus } from './operator.js';

const cr = (metadata: KubeObject['metadata'], status: unknown = {}): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { name: 'a', generation: 1, ...metadata },
  status,
});

describe('changedBeyondStatus (which CR updates trigger a reconcile)', () => {
  it.each([
    ['a status-only write', cr({}), cr({}, { failures: 1 }), false],
    ['our finalizer being added', cr({}), cr({ finalizers: [FINALIZER] }), false],
    ['a spec change', cr({}), cr({ generation: 2 }), true],
    ['an annotation change', cr({}), cr({ annotations: { a: 'b' } }), true],
    ['a label change', cr({}), cr({ labels: { a: 'b' } }), true],
    ['deletion starting', cr({}), cr({ deletionTimestamp: '2026-01-01T00:00:00Z' }), true],
    ['our finalizer being removed', cr({ finalizers: [FINALIZER] }), cr({ finalizers: [] }), true],
    ['someone else adding a finalizer', cr({}), cr({ finalizers: ['x/y'] }), true],
  ])('%s → %s', (_label, old, obj, expected) => {
    expect(changedBeyondStatus(old, obj)).toBe(expected);
  });
});
