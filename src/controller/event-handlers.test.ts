import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import type { KubeObject } from '../kube/types.js';
import { crEventHandler, dependentRouter } from './event-handlers.js';

const cr = (generation: number, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { name: 'a', namespace: 'ns', generation, creationTimestamp: '2026-01-01T00:00:00Z', ...extra },
});

function recorder() {
  const calls: string[] = [];
  const handler = crEventHandler({
    gvk: { group: 'x', version: 'v1', kind: 'X' },
    controller: { enqueue: (k) => calls.push(`enqueue ${k}`), resetBackoff: (k) => calls.push(`reset ${k}`) },
    logger: silentLogger,
    metrics: {
      resourceSeen: (l, at) => calls.push(`seen ${l.namespace}/${l.name} ${at}`),
      resourceDeleted: (l) => calls.push(`deleted ${l.namespace}/${l.name}`),
    },
  });
  return { calls, handler };
}

describe('crEventHandler', () => {
  it('enqueues adds and deletes, and updates only beyond status (a new generation resets the backoff)', () => {
    const { calls, handler } = recorder();
    handler.onAdd?.(cr(1));
    handler.onUpdate?.(cr(1), { ...cr(1), status: { x: 1 } });
    handler.onUpdate?.(cr(1), cr(2));
    handler.onUpdate?.(cr(2), cr(2, { labels: { a: 'b' } }));
    handler.onDelete?.(cr(2));
    const seen = 'seen ns/a 2026-01-01T00:00:00Z';
    expect(calls).toEqual([
      seen,
      'enqueue ns/a',
      seen,
      seen,
      'reset ns/a',
      'enqueue ns/a',
      seen,
      'enqueue ns/a',
      'deleted ns/a',
      'enqueue ns/a',
    ]);
  });
});

describe('dependentRouter', () => {
  it("sends a change to its owner's controller and ignores unknown kinds", () => {
    const keys: string[] = [];
    const controller = {
      name: 'x-controller',
      enqueueDependent: (k: string) => (keys.push(k) > 0 ? ('queued' as const) : ('backoff' as const)),
    };
    const route = dependentRouter(new Map([['X.x', controller]]), silentLogger);
    const object = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' };
    route({ groupKind: 'X.x', key: 'ns/a', event: 'update', object });
    route({ groupKind: 'Y.y', key: 'ns/b', event: 'update', object });
    expect(keys).toEqual(['ns/a']);
  });
});
