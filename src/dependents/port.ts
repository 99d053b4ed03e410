// The reconciler's DependentsPort, built from the dependent watcher and the drift repairer: after each successful
// reconcile it makes sure the manifest's kinds are watched, repairs drift when no helm action ran and reports it
// (DriftCorrected events, the corrections counter, logs), then reads the objects' readiness from the caches and,
// when a workload is not ready, asks its pods why (pod-causes.ts). Built per controller by manager/reconciler.ts.
// Never throws for a drift it cannot repair (that is a warning event); only aborts propagate.
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { type DriftCorrection, type DriftFailure, type DriftRepairer, describeCorrection } from '../drift/repair.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import { blamePod, type ReleaseObjectRef, type ReleaseSurvey, surveyRelease } from '../readiness/release.js';
import type { CustomResource, DependentsPort, EventSink, Readiness } from '../reconciler/types.js';
import type { PodCauses } from './pod-causes.js';
import type { Dependents } from './watcher.js';

export interface DependentsPortOptions {
  readonly kube: Pick<KubeClient, 'discover'>;
  /** Absent when the watch has watchDependentResources: false. */
  readonly watcher?: Dependents;
  readonly repairer: DriftRepairer;
  readonly events: EventSink;
  readonly onCorrected?: (c: DriftCorrection) => void;
  /** How long a reconcile waits for a dependent kind's first LIST before it reports Ready=Unknown. @default 10_000 */
  readonly syncTimeoutMs?: number;
  /** Names why a not-ready workload is not ready from its pods. @default none: Ready names the workload's counts */
  readonly pods?: PodCauses;
}

/** Not-ready workloads whose pods one reconcile looks at, in manifest order (a LIST each, at most). */
const MAX_WORKLOADS_LOOKED_AT = 3;

export function dependentsPort(o: DependentsPortOptions): DependentsPort {
  /** Resources already handed to the watcher, by apiVersion + kind: discovery is skipped for them. */
  const known = new Map<string, ApiResource>();
  return {
    async afterDeploy(cr, manifest, changed, { signal, log }) {
      const objects = o.repairer.objectsOf(manifest, `${cr.metadata.namespace ?? ''}/${cr.metadata.name}`);
      if (o.watcher) await watchKinds(o.kube, o.watcher, known, objects, signal, log);
      if (!changed) await repairDrift(o, cr, manifest, signal, log);
      if (!o.watcher) return undefined;
      // Kinds whose informer just started: their first LIST, not a transient Ready=Unknown (found by a restart test).
      const kinds = new Set(objects.map((obj) => known.get(`${String(obj.apiVersion)}/${String(obj.kind)}`)));
      const resources = [...kinds].filter((r): r is ApiResource => r !== undefined);
      await o.watcher.waitForSync(resources, o.syncTimeoutMs ?? 10_000, signal);
      const survey = surveyOf(o.watcher, known, objects, cr.metadata.namespace ?? '');
      return o.pods ? explain(o.pods, survey, signal, log) : survey.condition;
    },
    forget(key) {
      o.repairer.forget(key);
    },
  };
}

async function repairDrift(
  o: DependentsPortOptions,
  cr: CustomResource,
  manifest: string,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const namespace = cr.metadata.namespace ?? '';
  const result = await o.repairer.repair(manifest, namespace, signal, log);
  for (const c of result.corrected) report(o, cr, c, log);
  const where = (f: DriftFailure) => (f.namespace ? `${f.namespace}/${f.name}` : f.name);
  for (const f of result.failed) {
    o.events.event(cr, 'Warning', 'DriftRepairFailed', `Cannot put back ${f.kind} ${where(f)}: ${f.message}`);
  }
  for (const f of result.unconfirmed) {
    const message = `Cannot tell whether ${f.kind} ${where(f)} drifted: ${f.message}`;
    o.events.event(cr, 'Warning', 'DriftUnconfirmed', message);
    log.info({ kind: f.kind, object: where(f), reason: f.message }, 'Drift unconfirmed');
  }
}

/** The Ready condition of the manifest's objects, read from the dependent caches (no API request). */
function surveyOf(
  watcher: Dependents,
  known: ReadonlyMap<string, ApiResource>,
  objects: readonly Record<string, unknown>[],
  releaseNamespace: string,
): ReleaseSurvey {
  const refs = objects.map((obj) => {
    const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
    const res = known.get(`${String(obj.apiVersion)}/${String(obj.kind)}`);
    const namespace = res && !res.namespaced ? '' : meta.namespace || releaseNamespace;
    return { apiVersion: String(obj.apiVersion), kind: String(obj.kind), namespace, name: meta.name ?? '', res };
  });
  return surveyRelease(refs, (ref) => (ref.res ? watcher.get(ref.res, ref.namespace, ref.name) : undefined));
}

/**
 * Ready naming a pod's waiting container when a not-ready workload has one (a LIST of its pods, rate-limited), else
 * the survey's condition. `recheck` asks the reconciler to come back soon while pods are looked at: a pod's state
 * does not change the workload's status, so no watch event would show it. A ready release sends no request.
 */
async function explain(pods: PodCauses, survey: ReleaseSurvey, signal: AbortSignal, log: Logger): Promise<Readiness> {
  let looked = false;
  for (const w of survey.workloads.slice(0, MAX_WORKLOADS_LOOKED_AT)) {
    const ref: ReleaseObjectRef = w.ref;
    if (!pods.enabled(ref.namespace ?? '')) continue;
    looked = true;
    const cause = await pods.cause(w.live, signal, log);
    if (cause) return { ...blamePod(survey, ref, cause), recheck: true };
  }
  return looked ? { ...survey.condition, recheck: true } : survey.condition;
}

function report(o: DependentsPortOptions, cr: CustomResource, c: DriftCorrection, log: Logger): void {
  o.events.event(cr, 'Normal', 'DriftCorrected', describeCorrection(c));
  o.onCorrected?.(c);
  log.info(
    { kind: c.kind, object: c.namespace ? `${c.namespace}/${c.name}` : c.name, action: c.action, paths: c.paths },
    'Drift corrected',
  );
}

/**
 * Discovers the kinds of `objects` not yet in `known` (adding them) and starts their informers; a kind the cluster
 * does not serve is logged and left out. Also the start-up warm-up's (manager/warm-up.ts).
 */
export async function watchKinds(
  kube: Pick<KubeClient, 'discover'>,
  watcher: Pick<Dependents, 'ensure'>,
  known: Map<string, ApiResource>,
  objects: readonly Record<string, unknown>[],
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const fresh: ApiResource[] = [];
  for (const obj of objects) {
    const apiVersion = String(obj.apiVersion);
    const kind = String(obj.kind);
    const id = `${apiVersion}/${kind}`;
    if (known.has(id)) continue;
    try {
      const res = await kube.discover({ ...parseApiVersion(apiVersion), kind }, { signal });
      fresh.push(res);
      known.set(id, res);
    } catch (err) {
      if (signal.aborted) throw err;
      log.warn({ apiVersion, kind, err: errFields(err) }, 'Cannot watch dependent kind');
    }
  }
  watcher.ensure(fresh);
}
