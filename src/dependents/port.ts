// The reconciler's DependentsPort, built from the dependent watcher and the drift repairer: after each successful
// reconcile it makes sure the manifest's kinds are watched and, when no helm action ran, repairs drift and reports
// it (DriftCorrected events, the corrections counter, logs). Built per controller by manager/reconciler.ts.
// Never throws for a drift it cannot repair (that is a warning event); only aborts propagate.
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';
import { type DriftCorrection, type DriftRepairer, describeCorrection } from '../drift/repair.js';
import { parseApiVersion } from '../kube/paths.js';
import type { ApiResource, KubeClient } from '../kube/types.js';
import type { CustomResource, DependentsPort, EventSink } from '../reconciler/types.js';
import type { DependentWatcher } from './watcher.js';

export interface DependentsPortOptions {
  readonly kube: Pick<KubeClient, 'discover'>;
  /** Absent when the watch has watchDependentResources: false. */
  readonly watcher?: DependentWatcher;
  readonly repairer: DriftRepairer;
  readonly events: EventSink;
  readonly onCorrected?: (c: DriftCorrection) => void;
}

export function dependentsPort(o: DependentsPortOptions): DependentsPort {
  /** Kinds already handed to the watcher, by apiVersion + kind: discovery is skipped for them. */
  const known = new Set<string>();
  return {
    async afterDeploy(cr, manifest, changed, { signal, log }) {
      if (o.watcher) await watchKinds(o.kube, o.watcher, known, o.repairer.objectsOf(manifest), signal, log);
      if (changed) return;
      const namespace = cr.metadata.namespace ?? '';
      const result = await o.repairer.repair(manifest, namespace, signal, log);
      for (const c of result.corrected) report(o, cr, c, log);
      for (const f of result.failed) {
        const where = f.namespace ? `${f.namespace}/${f.name}` : f.name;
        o.events.event(cr, 'Warning', 'DriftRepairFailed', `Cannot put back ${f.kind} ${where}: ${f.message}`);
      }
    },
  };
}

function report(o: DependentsPortOptions, cr: CustomResource, c: DriftCorrection, log: Logger): void {
  o.events.event(cr, 'Normal', 'DriftCorrected', describeCorrection(c));
  o.onCorrected?.(c);
  log.info(
    { kind: c.kind, object: c.namespace ? `${c.namespace}/${c.name}` : c.name, action: c.action, paths: c.paths },
    'Drift corrected',
  );
}

async function watchKinds(
  kube: Pick<KubeClient, 'discover'>,
  watcher: DependentWatcher,
  known: Set<string>,
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
      fresh.push(await kube.discover({ ...parseApiVersion(apiVersion), kind }, { signal }));
      known.add(id);
    } catch (err) {
      if (signal.aborted) throw err;
      log.warn({ apiVersion, kind, err: errFields(err) }, 'Cannot watch dependent kind');
    }
  }
  watcher.ensure(fresh);
}
