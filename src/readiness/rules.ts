// The health of one live object, after kstatus' rules (sigs.k8s.io/cli-utils/pkg/kstatus/status): generic checks
// (deletion, observed generation, Reconciling/Stalled), then a per-kind rule, then a Ready condition. Pure; called
// by release.ts and by watchers via healthKey. Never reads the clock; messages hold only counts, phases, container
// names and controllers' condition reasons/messages, never spec or data values.
import { isRecord } from '../core/guards.js';
import type { KubeObject } from '../kube/types.js';

export type HealthState = 'ready' | 'progressing' | 'failed' | 'terminating';

export interface Health {
  readonly state: HealthState;
  readonly message: string;
}

/** A status condition as read: fields that are missing or not strings read as ''. */
type Cond = Readonly<Record<'type' | 'status' | 'reason' | 'message', string>>;

type Rule = (obj: KubeObject) => Health;

/** A check that holds, or the progressing message to report when it does not. */
type Check = readonly [holds: boolean, message: string];

const ready = (message: string): Health => ({ state: 'ready', message });
const progressing = (message: string): Health => ({ state: 'progressing', message });
const failed = (message: string): Health => ({ state: 'failed', message });

/** The value at a dotted path, or undefined when any step is missing or not a mapping. */
function at(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const key of path.split('.')) {
    if (!isRecord(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** An integer field, or `fallback` when it is absent or not an integer (as kstatus' GetIntField). */
function int(obj: unknown, path: string, fallback: number): number {
  const v = at(obj, path);
  return typeof v === 'number' && Number.isInteger(v) ? v : fallback;
}

function str(obj: unknown, path: string, fallback = ''): string {
  const v = at(obj, path);
  return typeof v === 'string' ? v : fallback;
}

/** status.conditions; a malformed entry reads as type '', which no rule looks for. */
function conditions(obj: unknown): Cond[] {
  const list = at(obj, 'status.conditions');
  const read = (c: unknown): Cond => ({
    type: str(c, 'type'),
    status: str(c, 'status'),
    reason: str(c, 'reason'),
    message: str(c, 'message'),
  });
  return Array.isArray(list) ? list.map(read) : [];
}

function condition(obj: unknown, type: string): Cond | undefined {
  return conditions(obj).find((c) => c.type === type);
}

/** `reason: message`, either alone when the other is empty, or `fallback` when both are. */
function explain(c: Cond, fallback: string): string {
  if (c.reason && c.message) return `${c.reason}: ${c.message}`;
  return c.reason || c.message || fallback;
}

/** `label: n/want`, holding when the status count at `path` reaches `want`. */
function atLeast(obj: unknown, path: string, label: string, want: number): Check {
  const n = int(obj, path, 0);
  return [n >= want, `${label}: ${n}/${want}`];
}

/** Holds unless the controller still has more pods than wanted (old ones pending termination). */
function noExtra(replicas: number, spec: number): Check {
  return [replicas <= spec, `Pending termination: ${replicas - spec}`];
}

/** The first check that does not hold, as progressing; undefined when every check holds. */
function firstGap(checks: readonly Check[]): Health | undefined {
  const gap = checks.find(([holds]) => !holds);
  return gap ? progressing(gap[1]) : undefined;
}

/** Deletion, an unobserved generation and the Reconciling/Stalled conditions decide before any kind rule. */
function generic(obj: KubeObject): Health | undefined {
  if (obj.metadata.deletionTimestamp) return { state: 'terminating', message: 'scheduled for deletion' };
  const generation = int(obj, 'metadata.generation', -1);
  const observed = int(obj, 'status.observedGeneration', -1);
  if (generation >= 0 && observed >= 0 && observed !== generation) {
    return progressing(`waiting for the controller to observe generation ${generation}`);
  }
  for (const c of conditions(obj)) {
    if (c.status !== 'True') continue;
    if (c.type === 'Reconciling') return progressing(explain(c, 'Reconciling'));
    if (c.type === 'Stalled') return failed(explain(c, 'Stalled'));
  }
  return undefined;
}

const alwaysReady: Rule = () => ready('always ready');

function deployment(obj: KubeObject): Health {
  const progress = condition(obj, 'Progressing');
  if (progress?.reason === 'ProgressDeadlineExceeded') {
    return failed(`Progress deadline exceeded${progress.message ? `: ${progress.message}` : ''}`);
  }
  const spec = int(obj, 'spec.replicas', 1);
  const replicas = int(obj, 'status.replicas', 0);
  const gap = firstGap([
    atLeast(obj, 'status.replicas', 'Replicas', spec),
    atLeast(obj, 'status.updatedReplicas', 'Updated', spec),
    noExtra(replicas, spec),
    atLeast(obj, 'status.availableReplicas', 'Available', int(obj, 'status.updatedReplicas', 0)),
    atLeast(obj, 'status.readyReplicas', 'Ready', spec),
  ]);
  if (gap) return gap;
  // Without a deadline (unset, or MaxInt32) the controller never sets Progressing: its absence proves nothing.
  const noDeadline = int(obj, 'spec.progressDeadlineSeconds', 2 ** 31 - 1) === 2 ** 31 - 1;
  const settled = progress?.status === 'True' && progress.reason === 'NewReplicaSetAvailable';
  if (!noDeadline && !settled) return progressing('ReplicaSet not Available');
  if (condition(obj, 'Available')?.status !== 'True') return progressing('Deployment not Available');
  return ready(`Deployment is available. Replicas: ${replicas}`);
}

function replicaSet(obj: KubeObject): Health {
  if (condition(obj, 'ReplicaFailure')?.status === 'True') return progressing('Replica Failure condition. Check Pods');
  const spec = int(obj, 'spec.replicas', 1);
  const replicas = int(obj, 'status.replicas', 0);
  return (
    firstGap([
      atLeast(obj, 'status.fullyLabeledReplicas', 'Labelled', spec),
      atLeast(obj, 'status.availableReplicas', 'Available', spec),
      atLeast(obj, 'status.readyReplicas', 'Ready', spec),
      noExtra(replicas, spec),
    ]) ?? ready(`ReplicaSet is available. Replicas: ${replicas}`)
  );
}

function statefulSet(obj: KubeObject): Health {
  if (str(obj, 'spec.updateStrategy.type') === 'OnDelete') return ready('StatefulSet uses OnDelete updates');
  const spec = int(obj, 'spec.replicas', 1);
  const replicas = int(obj, 'status.replicas', 0);
  const gap = firstGap([
    atLeast(obj, 'status.replicas', 'Replicas', spec),
    atLeast(obj, 'status.readyReplicas', 'Ready', spec),
    noExtra(replicas, spec),
  ]);
  if (gap) return gap;
  const partition = int(obj, 'spec.updateStrategy.rollingUpdate.partition', -1);
  if (partition !== -1) {
    const updated = atLeast(obj, 'status.updatedReplicas', `Updated (partition ${partition})`, spec - partition);
    return firstGap([updated]) ?? ready(`Partition rollout complete (partition ${partition})`);
  }
  return (
    firstGap([
      atLeast(obj, 'status.currentReplicas', 'Current', spec),
      [
        str(obj, 'status.currentRevision') === str(obj, 'status.updateRevision'),
        'Waiting for updated revision to match current',
      ],
    ]) ?? ready(`All replicas scheduled as expected. Replicas: ${replicas}`)
  );
}

function daemonSet(obj: KubeObject): Health {
  // The controller always sets these once it has acted, so (unlike the generic check) their absence means "not yet".
  if (int(obj, 'metadata.generation', -1) < 0) return progressing('DaemonSet generation not found');
  if (int(obj, 'status.observedGeneration', -1) < 0) return progressing('DaemonSet observedGeneration not found');
  const desired = int(obj, 'status.desiredNumberScheduled', -1);
  if (desired < 0) return progressing('Missing .status.desiredNumberScheduled');
  return (
    firstGap([
      atLeast(obj, 'status.currentNumberScheduled', 'Current', desired),
      atLeast(obj, 'status.updatedNumberScheduled', 'Updated', desired),
      atLeast(obj, 'status.numberAvailable', 'Available', desired),
      atLeast(obj, 'status.numberReady', 'Ready', desired),
    ]) ?? ready(`All replicas scheduled as expected. Replicas: ${desired}`)
  );
}

function job(obj: KubeObject): Health {
  const completions = int(obj, 'spec.completions', int(obj, 'spec.parallelism', 1));
  const succeeded = int(obj, 'status.succeeded', 0);
  const active = int(obj, 'status.active', 0);
  const nFailed = int(obj, 'status.failed', 0);
  for (const c of conditions(obj)) {
    if (c.status !== 'True') continue;
    if (c.type === 'Complete') return ready(`Job completed. Succeeded: ${succeeded}/${completions}`);
    if (c.type === 'Failed') return failed(`Job failed: ${explain(c, `failed ${nFailed}/${completions}`)}`);
    if (c.type === 'Suspended' && at(obj, 'spec.suspend') === true) return ready('Job is suspended');
  }
  if (!str(obj, 'status.startTime')) return progressing('Job not started');
  return progressing(`Job in progress. Succeeded: ${succeeded}/${completions}, active: ${active}, failed: ${nFailed}`);
}

function pvc(obj: KubeObject): Health {
  const phase = str(obj, 'status.phase', 'unknown');
  return phase === 'Bound' ? ready('PVC is Bound') : progressing(`PVC is not Bound: ${phase}`);
}

/** Names of containers waiting in CrashLoopBackOff. */
function crashLooping(obj: KubeObject): string[] {
  const statuses = at(obj, 'status.containerStatuses');
  return (Array.isArray(statuses) ? statuses : [])
    .filter((s) => str(s, 'state.waiting.reason') === 'CrashLoopBackOff' && str(s, 'name'))
    .map((s) => str(s, 'name'));
}

function pod(obj: KubeObject): Health {
  const phase = str(obj, 'status.phase');
  switch (phase) {
    case 'Succeeded':
      return ready('Pod has completed successfully');
    case 'Failed':
      return failed('Pod has completed, but not successfully');
    case 'Running': {
      if (condition(obj, 'Ready')?.status === 'True') return ready('Pod is Ready');
      const looping = crashLooping(obj);
      if (looping.length > 0) return failed(`Containers in CrashLoop state: ${looping.join(',')}`);
      return progressing('Pod is running but is not Ready');
    }
    case 'Pending': {
      const scheduled = condition(obj, 'PodScheduled');
      if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
        return progressing(`Pod has not been scheduled${scheduled.message ? `: ${scheduled.message}` : ''}`);
      }
      return progressing('Pod is in the Pending phase');
    }
    default:
      return progressing(phase ? `Pod phase is ${phase}` : 'Pod phase not available');
  }
}

function service(obj: KubeObject): Health {
  const noIp = str(obj, 'spec.type') === 'LoadBalancer' && !str(obj, 'spec.clusterIP');
  return noIp ? progressing('ClusterIP not set. Service type: LoadBalancer') : ready('Service is ready');
}

function crd(obj: KubeObject): Health {
  for (const c of conditions(obj)) {
    if (c.type === 'NamesAccepted' && c.status === 'False') return failed(explain(c, 'Names not accepted'));
    if (c.type !== 'Established') continue;
    if (c.status === 'False' && c.reason !== 'Installing') return failed(explain(c, 'Not established'));
    if (c.status === 'True') return ready('CRD is established');
  }
  return progressing('Install in progress');
}

/** The per-kind rules, keyed `group/Kind` (`Kind` for the core group), whatever the version, as kstatus does. */
const RULES: Readonly<Record<string, Rule>> = {
  Service: service,
  Pod: pod,
  Secret: alwaysReady,
  ConfigMap: alwaysReady,
  PersistentVolumeClaim: pvc,
  'apps/Deployment': deployment,
  'extensions/Deployment': deployment,
  'apps/ReplicaSet': replicaSet,
  'extensions/ReplicaSet': replicaSet,
  'apps/StatefulSet': statefulSet,
  'apps/DaemonSet': daemonSet,
  'extensions/DaemonSet': daemonSet,
  'batch/Job': job,
  'batch/CronJob': alwaysReady,
  'policy/PodDisruptionBudget': () => ready('AllowedDisruptions has been computed'),
  'apiextensions.k8s.io/CustomResourceDefinition': crd,
};

function ruleFor(obj: KubeObject): Rule | undefined {
  const slash = obj.apiVersion.lastIndexOf('/');
  const key = slash < 0 ? obj.kind : `${obj.apiVersion.slice(0, slash)}/${obj.kind}`;
  return Object.hasOwn(RULES, key) ? RULES[key] : undefined;
}

/** A kind without a rule: its Ready condition if it has one (Unknown counts as False), else ready. */
function readyCondition(obj: KubeObject): Health {
  const c = condition(obj, 'Ready');
  if (c?.status === 'True') return ready('Resource is Ready');
  if (c?.status === 'False' || c?.status === 'Unknown') return progressing(explain(c, `Ready is ${c.status}`));
  return ready('Resource is current');
}

/** The health of a live object: kstatus' Current/InProgress/Failed/Terminating as ready/progressing/failed/terminating. */
export function objectHealth(obj: KubeObject): Health {
  return generic(obj) ?? (ruleFor(obj) ?? readyCondition)(obj);
}

export function sameHealth(a: Health, b: Health): boolean {
  return a.state === b.state && a.message === b.message;
}

/** A string that changes exactly when objectHealth's result does: compare it to skip status-only updates. */
export function healthKey(obj: KubeObject): string {
  const h = objectHealth(obj);
  return `${h.state}:${h.message}`;
}
