import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../finalizers/finalizers.js';
import type { KubeObject } from '../kube/types.js';
import { changedBeyondBookkeeping, changedBeyondStatus } from './predicates.js';

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

const BASE: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'team',
    uid: 'uid-1',
    resourceVersion: '100',
    generation: 3,
    labels: { app: 'web' },
    annotations: { note: 'a' },
    managedFields: [{ manager: 'helm', operation: 'Apply' }],
  },
  spec: { replicas: 1 },
  data: { key: 'v' },
  status: { readyReplicas: 1 },
};

/** BASE with `change` applied to a deep copy. */
function changed(change: (o: KubeObject) => void): KubeObject {
  const copy = structuredClone(BASE);
  change(copy);
  return copy;
}

describe('changedBeyondBookkeeping', () => {
  it('is false for an identical copy', () => {
    expect(changedBeyondBookkeeping(BASE, structuredClone(BASE))).toBe(false);
  });

  describe('when only bookkeeping moved', () => {
    it.each<[string, (o: KubeObject) => void]>([
      ['status', (o) => (o.status = { readyReplicas: 0, conditions: [{ type: 'Available' }] })],
      ['status removed', (o) => delete o.status],
      ['resourceVersion', (o) => (o.metadata.resourceVersion = '101')],
      ['managedFields', (o) => (o.metadata.managedFields = [{ manager: 'kubectl', operation: 'Update' }])],
      ['generation', (o) => (o.metadata.generation = 4)],
      [
        'status, resourceVersion and managedFields together',
        (o) => {
          o.status = {};
          o.metadata.resourceVersion = '102';
          o.metadata.managedFields = [];
        },
      ],
    ])('is false for a change of %s', (_what, change) => {
      expect(changedBeyondBookkeeping(BASE, changed(change))).toBe(false);
    });
  });

  describe('when the object itself changed', () => {
    it.each<[string, (o: KubeObject) => void]>([
      ['spec', (o) => (o.spec = { replicas: 2 })],
      ['data', (o) => (o.data = { key: 'other' })],
      ['a new top-level field', (o) => (o.stringData = { a: 'b' })],
      ['labels', (o) => (o.metadata.labels = { app: 'web', tier: 'front' })],
      ['annotations', (o) => (o.metadata.annotations = {})],
      ['ownerReferences', (o) => (o.metadata.ownerReferences = [])],
      ['finalizers', (o) => (o.metadata.finalizers = ['x'])],
      ['deletionTimestamp', (o) => (o.metadata.deletionTimestamp = '2024-01-01T00:00:00Z')],
    ])('is true for a change of %s', (_what, change) => {
      expect(changedBeyondBookkeeping(BASE, changed(change))).toBe(true);
    });

    it('is true even when bookkeeping moved with it', () => {
      const next = changed((o) => {
        o.spec = { replicas: 5 };
        o.metadata.resourceVersion = '200';
        o.status = {};
      });
      expect(changedBeyondBookkeeping(BASE, next)).toBe(true);
    });
  });
});
