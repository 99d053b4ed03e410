// The coordination.k8s.io/v1 Lease as leader election reads and writes it: the resource, its spec's fields, the
// API server's MicroTime format, and when a Lease has expired. Pure; used by election.ts and the leader tests.
// Never makes a request.
import type { ApiResource, KubeObject } from '../kube/types.js';

export const LEASES: ApiResource = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
};

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** RFC 3339 with microseconds, as the API server writes MicroTime: `2026-01-01T00:00:00.000000Z`. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

export function specOf(lease: KubeObject): LeaseSpec {
  const s = lease.spec;
  return typeof s === 'object' && s !== null ? (s as LeaseSpec) : {};
}

/** A lease without a parseable renewTime (or duration) counts as expired. */
export function expired(spec: LeaseSpec, now: number): boolean {
  const renewed = spec.renewTime === undefined ? Number.NaN : Date.parse(spec.renewTime);
  const seconds = spec.leaseDurationSeconds;
  if (!Number.isFinite(renewed) || typeof seconds !== 'number') return true;
  return renewed + seconds * 1000 <= now;
}
