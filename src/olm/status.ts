// What `helm-operator olm status` (and the end of `olm install`) prints: each of OLM's objects, whether it is
// installed, and the health of those that have one (a Deployment's available replicas, a CSV's phase, a CRD's
// Established condition), as operator-sdk's NAME/NAMESPACE/KIND/STATUS table. Pure: olm/installer.ts reads the
// objects and hands them in; never touches the cluster.
import type { KubeObject } from '../kube/types.js';

/** One object of OLM's manifests as the cluster has it. */
export interface ObjectStatus {
  readonly name: string;
  readonly namespace: string;
  readonly kind: string;
  /** The live object; absent when it is not there (or could not be read: then `error`). */
  readonly live?: KubeObject;
  /** Why it could not be read (anything but "not found"). */
  readonly error?: string;
}

type Conditions = { type?: string; status?: string; reason?: string; message?: string }[];

const condition = (obj: KubeObject, type: string) =>
  ((obj.status as { conditions?: Conditions } | undefined)?.conditions ?? []).find((c) => c.type === type);

/** Why a live object is not healthy yet, or undefined when it is (or has no health of its own). */
export function unhealthy(obj: KubeObject): string | undefined {
  const status = (obj.status ?? {}) as Record<string, unknown>;
  switch (obj.kind) {
    case 'Deployment': {
      const want = Number((obj.spec as { replicas?: number } | undefined)?.replicas ?? 1);
      const available = Number(status.availableReplicas ?? 0);
      if (condition(obj, 'Progressing')?.reason === 'ProgressDeadlineExceeded') return 'progress deadline exceeded';
      return available >= want ? undefined : `${available}/${want} replicas available`;
    }
    case 'ClusterServiceVersion': {
      const phase = String(status.phase ?? '');
      return phase === 'Succeeded' ? undefined : `phase ${phase || 'none yet'}${reasonOf(status)}`;
    }
    case 'CustomResourceDefinition':
      return condition(obj, 'Established')?.status === 'True' ? undefined : 'not established';
    default:
      return undefined;
  }
}

const reasonOf = (status: Record<string, unknown>) => (status.reason ? ` (${String(status.reason)})` : '');

/** The STATUS column: `Installed` (with its health where it has one), `Not installed`, or the read error. */
export function statusWord(s: ObjectStatus): string {
  if (s.error !== undefined) return s.error;
  if (s.live === undefined) return 'Not installed';
  const bad = unhealthy(s.live);
  if (bad !== undefined) return `Installed, not ready: ${bad}`;
  switch (s.live.kind) {
    case 'Deployment': {
      const st = (s.live.status ?? {}) as { availableReplicas?: number };
      return `Installed, ${st.availableReplicas ?? 0} available`;
    }
    case 'ClusterServiceVersion':
      return 'Installed, Succeeded';
    default:
      return 'Installed';
  }
}

/** True when every object is there and healthy. */
export function allHealthy(rows: readonly ObjectStatus[]): boolean {
  return rows.every((r) => r.error === undefined && r.live !== undefined && unhealthy(r.live) === undefined);
}

/** True when any object of the manifests is there. */
export function anyInstalled(rows: readonly ObjectStatus[]): boolean {
  return rows.some((r) => r.live !== undefined);
}

/** The table, columns padded as Go's tabwriter pads operator-sdk's (minimum 8, padding 4). */
export function formatStatus(rows: readonly ObjectStatus[]): string {
  const table = [
    ['NAME', 'NAMESPACE', 'KIND', 'STATUS'],
    ...rows.map((r) => [r.name, r.namespace, r.kind, statusWord(r)]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(8, ...table.map((row) => (row[i] ?? '').length + 4)));
  return `${table.map((row) => row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell)).join('')).join('\n')}\n`;
}
