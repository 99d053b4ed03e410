// Builders for the readiness rules' unit tests (src/readiness/rules*.test.ts): live objects of any kind, condition
// lists, a Deployment that is ready unless told otherwise, and expectHealth(), which checks objectHealth()'s verdict.
// Test-only.
import { expect } from 'vitest';
import type { KubeObject } from '../../src/kube/types.js';
import { type Health, objectHealth } from '../../src/readiness/rules.js';

export type Obj = Record<string, unknown>;
export type Cond = { type: string; status: string; reason?: string; message?: string };

/** A live object of `apiVersion`/`kind` with the given spec, status and metadata (generation 1 by default). */
export function obj(
  apiVersion: string,
  kind: string,
  spec: Obj = {},
  status: Obj = {},
  metadata: Obj = {},
): KubeObject {
  return { apiVersion, kind, metadata: { name: 'x', namespace: 'ns', ...metadata }, spec, status };
}

export function conds(...list: Cond[]): { conditions: Cond[] } {
  return { conditions: list };
}

const READY_DEPLOYMENT_CONDITIONS = conds(
  { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
  { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
);

export function deployment(spec: Obj, status: Obj, metadata: Obj = { generation: 1 }): KubeObject {
  return obj(
    'apps/v1',
    'Deployment',
    { progressDeadlineSeconds: 600, ...spec },
    { observedGeneration: 1, ...READY_DEPLOYMENT_CONDITIONS, ...status },
    metadata,
  );
}

export const fullDeployment = { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 };

export function expectHealth(o: KubeObject, state: Health['state'], message?: string | RegExp): void {
  const h = objectHealth(o);
  expect(h.state, h.message).toBe(state);
  if (typeof message === 'string') expect(h.message).toBe(message);
  else if (message) expect(h.message).toMatch(message);
}
