// Runs the operator's controllers: the process-wide parts once (process.ts), then one controller per watches.yaml
// entry, each built by the watch builder (watch.ts) as controller-runtime's builder composes one per type, all run
// as one group with the release-record informers. Called by the manager (manager.ts) once it may lead; never reads
// process.* or exits.
import type { Controller } from '../controller/controller.js';
import { runGroup } from './group.js';
import type { OperatorOptions } from './options.js';
import { operatorParts } from './process.js';
import { buildWatch } from './watch.js';

/**
 * Resolves every watch to its API resource (failing clearly when a CRD is missing), then runs the controllers until
 * aborted; one that fails stops the others. `signal` aborts everything, the reconciles running (and their helm)
 * included. `stop` is the graceful stop: the controllers take no new key, the running reconciles finish under
 * `signal`, then everything else (informers, watches) stops and it resolves. @default `stop` = `signal`
 */
export async function runOperator(o: OperatorOptions, signal: AbortSignal, stop: AbortSignal = signal): Promise<void> {
  const drained = new AbortController();
  const all = AbortSignal.any([signal, drained.signal]);
  const parts = operatorParts(o, all);
  const controllers: Controller[] = [];
  // A stop during startup lets it finish (each request has its deadline): the controllers then end at once.
  for (const watch of o.watches) controllers.push(await buildWatch(parts, watch, all));
  o.onControllers?.(controllers);
  const run = (c: Controller) => (s: AbortSignal) => c.run(s, stop);
  const reconciling = async (s: AbortSignal) => {
    await runGroup(controllers.map(run), s);
    drained.abort(stop.reason); // every reconcile is done: the informers and watches may go
  };
  await runGroup([reconciling, (s) => parts.records.run(s)], all);
}
