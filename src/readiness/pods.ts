// Why a workload is not ready, from its pods: the first container (init containers first) waiting with a reason that
// needs a person (an image that cannot be pulled, a crash loop, a bad config reference), and the pod label selector
// to find those pods with. Pure; called by dependents/pod-causes.ts. Never reads the waiting message or the image
// (both carry spec values): only pod, container and reason names leave this module.
import { POD_WAIT_REASONS } from '../conditions/condition-catalogue.js';
import { type LabelSelectorRequirement, labelSelectorString } from '../config/label-selector.js';
import { isRecord } from '../core/guards.js';
import type { KubeObject } from '../kube/types.js';

export type PodWaitReason = (typeof POD_WAIT_REASONS)[number];

const ALIASES: Readonly<Record<string, PodWaitReason>> = { ErrImagePull: 'ImagePullBackOff' };

/** The kinds whose pods are looked at, keyed `group/Kind`. */
const WORKLOADS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet', 'batch/Job']);

export interface PodCause {
  readonly pod: string;
  readonly container: string;
  readonly init: boolean;
  readonly reason: PodWaitReason;
}

export function isWorkload(apiVersion: string, kind: string): boolean {
  const slash = apiVersion.lastIndexOf('/');
  return slash > 0 && WORKLOADS.has(`${apiVersion.slice(0, slash)}/${kind}`);
}

/** The status counts that say a workload's controller has made pods (no pods yet: nothing to list). */
const POD_COUNTS: Readonly<Record<string, readonly string[]>> = {
  Deployment: ['replicas'],
  StatefulSet: ['replicas'],
  DaemonSet: ['currentNumberScheduled', 'numberMisscheduled'],
  Job: ['active', 'failed', 'ready'],
};

/**
 * Whether the workload's status counts some pods: only then are its pods listed. A workload whose controller has
 * made none (just created, or no controller runs, as on a plane without nodes) costs no request.
 */
export function hasPods(obj: KubeObject): boolean {
  const status = isRecord(obj.status) ? obj.status : {};
  return (POD_COUNTS[obj.kind] ?? []).some((f) => typeof status[f] === 'number' && (status[f] as number) > 0);
}

/** `reason` as a PodWaitReason (its alias resolved), or undefined when it is not one that names a cause. */
export function waitReason(reason: unknown): PodWaitReason | undefined {
  if (typeof reason !== 'string') return undefined;
  if (Object.hasOwn(ALIASES, reason)) return ALIASES[reason];
  return (POD_WAIT_REASONS as readonly string[]).includes(reason) ? (reason as PodWaitReason) : undefined;
}

function statuses(pod: KubeObject, field: string): unknown[] {
  const status = isRecord(pod.status) ? pod.status[field] : undefined;
  return Array.isArray(status) ? status : [];
}

/** The first container of `pod` waiting with a cause: init containers first (they hold the others back). */
function podCause(pod: KubeObject): PodCause | undefined {
  const name = pod.metadata.name ?? '';
  for (const [field, init] of [
    ['initContainerStatuses', true],
    ['containerStatuses', false],
  ] as const) {
    for (const s of statuses(pod, field)) {
      if (!isRecord(s) || typeof s.name !== 'string' || !isRecord(s.state) || !isRecord(s.state.waiting)) continue;
      const reason = waitReason(s.state.waiting.reason);
      if (reason) return { pod: name, container: s.name, init, reason };
    }
  }
  return undefined;
}

/**
 * The cause among `pods`: newest pod first (a rollout's new pods are the ones that matter), then by name, so the
 * answer is the same for the same pods whatever order the server lists them in. Pods being deleted are left out.
 */
export function podsCause(pods: readonly KubeObject[]): PodCause | undefined {
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  const created = (p: KubeObject) => String(p.metadata.creationTimestamp ?? '');
  live.sort(
    (a, b) => created(b).localeCompare(created(a)) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  for (const pod of live) {
    const cause = podCause(pod);
    if (cause) return cause;
  }
  return undefined;
}

/** `pod web-7d9c-x: container nginx: ImagePullBackOff` (`init container` for an init container). */
export function describeCause(c: PodCause): string {
  return `pod ${c.pod}: ${c.init ? 'init container' : 'container'} ${c.container}: ${c.reason}`;
}

const LABEL = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$|^$/;
const OPERATORS: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/**
 * The workload's `spec.selector` as a labelSelector query, or undefined when it has none, selects everything, or
 * holds anything a query could not carry as is (never widen a LIST to the whole namespace).
 */
export function workloadSelector(obj: KubeObject): string | undefined {
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const sel = isRecord(spec.selector) ? spec.selector : undefined;
  if (!sel) return undefined;
  const matchLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(isRecord(sel.matchLabels) ? sel.matchLabels : {})) {
    if (typeof v !== 'string' || !LABEL.test(k) || !LABEL.test(v)) return undefined;
    matchLabels[k] = v;
  }
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    if (!isRecord(e) || typeof e.key !== 'string' || !LABEL.test(e.key) || !OPERATORS.includes(String(e.operator))) {
      return undefined;
    }
    const values = Array.isArray(e.values) ? e.values : [];
    if (!values.every((v): v is string => typeof v === 'string' && LABEL.test(v))) return undefined;
    const operator = e.operator as LabelSelectorRequirement['operator'];
    const withValues = operator === 'In' || operator === 'NotIn';
    if (withValues !== values.length > 0) return undefined;
    matchExpressions.push(withValues ? { key: e.key, operator, values } : { key: e.key, operator });
  }
  const text = labelSelectorString({ matchLabels, matchExpressions });
  return text === '' ? undefined : text;
}
